/** A static legal page (privacy policy, terms): title, date, table of contents, numbered sections. */
import { Trans, useTranslation } from 'react-i18next';
import { Card } from '../ui/Card';
import { Blocks } from './RichContent';

interface Section {
  id: string;
  title: string;
  body: unknown;
}

function toSections(value: unknown): Section[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([id, section]) => {
    if (typeof section !== 'object' || section === null) return [];
    const { title, body } = section as { title?: unknown; body?: unknown };
    return typeof title === 'string' ? [{ id, title, body }] : [];
  });
}

export interface LegalDocumentProps {
  /** i18n key prefix of the document, e.g. `pages.privacy`: it holds `title`, `intro` and `sections`. */
  prefix: 'pages.privacy' | 'pages.terms';
  /** ISO date (YYYY-MM-DD) of the current version. */
  lastUpdated: string;
  /** Interpolation values (constants) used by the document's text. */
  values: Record<string, string | number>;
}

/** A static legal page: title, date, table of contents and numbered sections. */
export function LegalDocument({ prefix, lastUpdated, values }: LegalDocumentProps) {
  const { t, i18n } = useTranslation();
  const slug = prefix.split('.').pop() ?? 'doc';
  const sections = toSections(t(`${prefix}.sections`, { ...values, returnObjects: true })).map((section) => ({
    ...section,
    id: `${slug}-${section.id}`,
  }));
  const date = new Intl.DateTimeFormat(i18n.resolvedLanguage, { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(`${lastUpdated}T00:00:00Z`),
  );
  return (
    <article className="mx-auto max-w-3xl">
      <Card className="overflow-hidden">
        <div className="racing-stripe h-1" aria-hidden="true" />
        <div className="px-5 py-8 sm:px-10 sm:py-10">
          <header>
            <h1 className="font-display text-3xl font-black tracking-tight italic sm:text-4xl">
              {t(`${prefix}.title`)}
            </h1>
            <p className="mt-2 text-sm text-muted">
              <Trans
                i18nKey="pages.common.lastUpdated"
                values={{ date }}
                components={{ time: <time dateTime={lastUpdated} /> }}
              />
            </p>
            <p className="mt-6 text-lg leading-relaxed text-fg">{t(`${prefix}.intro`, values)}</p>
          </header>

          <nav
            aria-labelledby={`${slug}-toc`}
            className="mt-8 rounded-xl border border-line bg-surface-2/60 p-5"
          >
            <p id={`${slug}-toc`} className="text-xs font-bold tracking-[0.2em] text-muted uppercase">
              {t('pages.common.onThisPage')}
            </p>
            <ol className="mt-3 grid list-decimal gap-x-8 gap-y-1.5 pl-5 text-sm marker:text-muted sm:grid-cols-2">
              {sections.map((section) => (
                <li key={section.id}>
                  <a
                    href={`#${section.id}`}
                    className="text-fg no-underline hover:text-accent hover:underline"
                  >
                    {section.title}
                  </a>
                </li>
              ))}
            </ol>
          </nav>

          <div className="mt-10 space-y-10">
            {sections.map((section, index) => (
              <section key={section.id} aria-labelledby={section.id} className="scroll-mt-24">
                <h2
                  id={section.id}
                  className="scroll-mt-24 border-l-4 border-accent pl-3 text-xl font-bold tracking-tight text-fg"
                >
                  <span className="mr-2 text-accent tabular-nums">{index + 1}.</span>
                  {section.title}
                </h2>
                <div className="mt-4 space-y-4 leading-relaxed text-fg/90">
                  <Blocks value={section.body} />
                </div>
              </section>
            ))}
          </div>
        </div>
      </Card>
    </article>
  );
}
