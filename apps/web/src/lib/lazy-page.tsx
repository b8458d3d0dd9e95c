/**
 * Route-level code splitting: a page whose code is fetched the first time it is shown, behind the
 * existing spinner. A chunk that cannot be fetched (usually a deploy since the tab was opened: the
 * old hashed file is gone) is thrown as a `PageLoadError`, which the route's error page offers to
 * fix with a reload.
 */
import { type ComponentType, lazy, Suspense } from 'react';
import { Spinner } from '../components/ui/Spinner';

type PageModule = { default: ComponentType };

/** A page's code could not be fetched; reloading the document picks up the current build. */
export class PageLoadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'PageLoadError';
  }
}

export interface LazyPage {
  /** The route element: the page, or the spinner while its code loads. */
  element: React.JSX.Element;
  /** Starts fetching the page's code now (e.g. for the address the document was opened at). */
  preload(): Promise<unknown>;
}

/** Shown in the page area while a page's code loads: the same spinner as everywhere else. */
export function PageLoading() {
  return (
    <div className="grid min-h-48 place-items-center text-accent">
      <Spinner size="lg" />
    </div>
  );
}

/** A page's code: the component once it has arrived, and React.lazy's stand-in until then. */
interface PageCode {
  loaded: ComponentType | undefined;
  Lazy: ComponentType;
}

/**
 * The page itself when its code is already here (preloaded): React.lazy would still suspend for a
 * tick, and could flash the spinner in between.
 */
function PageOf({ code }: { code: PageCode }) {
  const Loaded = code.loaded;
  return Loaded ? <Loaded /> : <code.Lazy />;
}

export function lazyPage(load: () => Promise<PageModule>): LazyPage {
  let loading: Promise<PageModule> | undefined;
  const preload = (): Promise<PageModule> => {
    loading ??= load().then(
      (module) => {
        code.loaded = module.default;
        return module;
      },
      (error: unknown) => {
        // Not cached: a later navigation may try again (React.lazy itself keeps the failure).
        loading = undefined;
        throw new PageLoadError(error);
      },
    );
    return loading;
  };
  const code: PageCode = { loaded: undefined, Lazy: lazy(preload) };
  return {
    element: (
      <Suspense fallback={<PageLoading />}>
        <PageOf code={code} />
      </Suspense>
    ),
    preload,
  };
}
