/**
 * The privacy policy (Quebec's Law 25 and PIPEDA), and the document renderer the terms and the FAQ
 * share: their text lives in i18n/pages/*.json as blocks (a string is a paragraph, an array a list,
 * `{head, rows}` a table) with `[label](target)` links.
 */
import {
  COOKIE_CONSENT_COOKIE,
  COOKIE_CONSENT_DAYS,
  LANGUAGE_COOKIE,
  MINIMUM_AGE,
  THEME_STORAGE_KEY,
  TICKETS,
} from '@telerace/protocol';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Card } from '../components/ui/Card';
import { LANGUAGE_STORAGE_KEY } from '../i18n';

/** Date of the current version of the policy (ISO, UTC). */
const PRIVACY_LAST_UPDATED = '2026-11-25';

type Table = { head: string[]; rows: string[][] };
type Block = string | string[] | Table;

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

function isTable(value: unknown): value is Table {
  if (typeof value !== 'object' || value === null) return false;
  const { head, rows } = value as Partial<Table>;
  return isStringArray(head) && Array.isArray(rows) && rows.every(isStringArray);
}

function toBlocks(value: unknown): Block[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (block): block is Block => typeof block === 'string' || isStringArray(block) || isTable(block),
  );
}

const linkClass =
  'font-medium text-accent underline decoration-accent/40 underline-offset-3 hover:decoration-accent';

const LINK = /\[([^\]]+)\]\(([^)\s]+)\)/g;

/** A translated text whose `[label](target)` parts become links (site paths, mailto: or external pages). */
export function RichText({ text }: { text: string }) {
  const { t } = useTranslation();
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const [whole, label = '', target = ''] = match;
    parts.push(text.slice(last, match.index));
    if (target.startsWith('/')) {
      parts.push(
        <Link key={match.index} to={target} className={linkClass}>
          {label}
        </Link>,
      );
    } else if (/^https?:\/\//.test(target)) {
      parts.push(
        <a key={match.index} href={target} target="_blank" rel="noopener noreferrer" className={linkClass}>
          {label}
          <span className="sr-only"> {t('pages.common.newTab')}</span>
        </a>,
      );
    } else {
      parts.push(
        <a key={match.index} href={target} className={linkClass}>
          {label}
        </a>,
      );
    }
    last = match.index + whole.length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}

/** Renders translated blocks (from `t(key, { returnObjects: true })`); anything malformed is skipped. */
export function Blocks({ value }: { value: unknown }) {
  return (
    <>
      {toBlocks(value).map((block, index) => {
        const key = `b${index}`;
        if (typeof block === 'string') {
          return (
            <p key={key}>
              <RichText text={block} />
            </p>
          );
        }
        if (isStringArray(block)) {
          return (
            <ul key={key} className="list-disc space-y-2 pl-6 marker:text-accent">
              {block.map((item) => (
                <li key={item} className="pl-1">
                  <RichText text={item} />
                </li>
              ))}
            </ul>
          );
        }
        return (
          <section
            key={key}
            aria-label={block.head.join(', ')}
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a table wider than the screen must scroll from the keyboard.
            tabIndex={0}
            className="overflow-x-auto rounded-xl border border-line"
          >
            <table className="w-full border-collapse text-left text-sm">
              <thead className="bg-surface-2">
                <tr>
                  {block.head.map((cell) => (
                    <th key={cell} scope="col" className="px-4 py-3 font-semibold text-fg">
                      {cell}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {block.rows.map((row) => (
                  <tr key={row.join('|')} className="align-top">
                    <th scope="row" className="px-4 py-3 font-medium text-fg">
                      <RichText text={row[0] ?? ''} />
                    </th>
                    {row.slice(1).map((cell) => (
                      <td key={cell} className="px-4 py-3">
                        <RichText text={cell} />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        );
      })}
    </>
  );
}

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
  prefix: string;
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

export default function PrivacyPolicy() {
  return (
    <LegalDocument
      prefix="pages.privacy"
      lastUpdated={PRIVACY_LAST_UPDATED}
      values={{
        minimumAge: MINIMUM_AGE,
        consentCookie: COOKIE_CONSENT_COOKIE,
        consentDays: COOKIE_CONSENT_DAYS,
        languageCookie: LANGUAGE_COOKIE,
        languageKey: LANGUAGE_STORAGE_KEY,
        themeKey: THEME_STORAGE_KEY,
        donationExpiryDays: TICKETS.donationExpiryDays,
      }}
    />
  );
}
