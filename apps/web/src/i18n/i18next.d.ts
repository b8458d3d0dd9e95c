/**
 * i18next's typed keys: `t('…')` accepts only a key of the English texts, as the app assembles
 * them (index.ts: en.json, with the pages' and long documents' texts under `pages`), so
 * `npm run typecheck` fails on a key that does not exist. French has the same keys:
 * translations.test.ts holds it to that.
 */
import 'i18next';
import type documentsEn from './documents/en.json';
import type en from './en.json';
import type pagesEn from './pages/en.json';

/**
 * The long documents' rich blocks (arrays read whole with `returnObjects`, by RichContent) as
 * plain arrays: nobody asks for a key inside them, and i18next's key types over their nesting
 * exceed the checker's instantiation depth.
 */
type WholeArrays<T> = T extends readonly unknown[]
  ? readonly unknown[]
  : T extends object
    ? { [K in keyof T]: WholeArrays<T[K]> }
    : T;

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en & { pages: typeof pagesEn & WholeArrays<typeof documentsEn> } };
  }
}
