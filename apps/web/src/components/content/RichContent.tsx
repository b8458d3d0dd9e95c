/**
 * Renders long translated texts stored as blocks in i18n/pages/*.json: a string is a paragraph,
 * an array a list, `{head, rows}` a table, and `[label](target)` inside a text is a link.
 */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ScrollTable } from '../ui/ScrollTable';

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
          <ScrollTable key={key} label={block.head.join(', ')} captioned={false}>
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
          </ScrollTable>
        );
      })}
    </>
  );
}
