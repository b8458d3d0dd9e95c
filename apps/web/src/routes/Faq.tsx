/**
 * The FAQ: groups of questions as disclosures. Every number in it comes from the business
 * constants; the ticket rules are the shared TicketRules component; the contact sentence follows
 * the deployment's support address.
 */
import { CAR_SESSION_DEFAULT_MINUTES, MINIMUM_AGE, PING_THRESHOLDS_MS, TICKETS } from '@telerace/protocol';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Blocks, RichText } from '../components/content/RichContent';
import { useSupportContact } from '../components/content/support-contact';
import { ScrollTable, ScrollTableHead } from '../components/ui/ScrollTable';
import { TicketRules } from '../features/tickets/TicketRules';

interface Question {
  id: string;
  q: string;
  a: unknown;
}

interface Group {
  id: string;
  title: string;
  items: Question[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

function toGroups(value: unknown): Group[] {
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([id, group]) => {
    if (!isRecord(group) || typeof group.title !== 'string' || !isRecord(group.items)) return [];
    const items = Object.entries(group.items).flatMap(([itemId, item]) =>
      isRecord(item) && typeof item.q === 'string' ? [{ id: `${id}-${itemId}`, q: item.q, a: item.a }] : [],
    );
    return [{ id, title: group.title, items }];
  });
}

type Arrow = 'up' | 'down' | 'left' | 'right';
const ARROWS: Record<Arrow, string> = { up: '↑', down: '↓', left: '←', right: '→' };
const CONTROL_COLUMNS = ['action', 'keyboard', 'gamepad', 'touch'] as const;

const CONTROL_ROWS = [
  { id: 'throttle', letter: 'W', arrow: 'up' },
  { id: 'reverse', letter: 'S', arrow: 'down' },
  { id: 'left', letter: 'A', arrow: 'left' },
  { id: 'right', letter: 'D', arrow: 'right' },
] as const;

const kbdClass =
  'inline-flex min-w-7 items-center justify-center rounded-md border border-line border-b-2 bg-surface px-1.5 py-0.5 font-mono text-xs font-semibold text-fg';

function ControlsTable() {
  const { t } = useTranslation();
  return (
    <ScrollTable label={t('pages.faq.controls.caption')}>
      <ScrollTableHead
        columns={CONTROL_COLUMNS.map((column) => ({ label: t(`pages.faq.controls.${column}`) }))}
      />
      <tbody className="divide-y divide-line">
        {CONTROL_ROWS.map((row) => (
          <tr key={row.id}>
            <th scope="row" className="px-4 py-2.5 font-medium">
              {t(`pages.faq.controls.rows.${row.id}.action`)}
            </th>
            <td className="px-4 py-2.5 whitespace-nowrap">
              <kbd className={kbdClass}>{row.letter}</kbd>{' '}
              <span className="text-muted">{t('pages.faq.controls.or')}</span>{' '}
              <kbd className={kbdClass}>
                <span aria-hidden="true">{ARROWS[row.arrow]}</span>
                <span className="sr-only">{t(`pages.faq.controls.keys.${row.arrow}`)}</span>
              </kbd>
            </td>
            <td className="px-4 py-2.5">{t(`pages.faq.controls.rows.${row.id}.gamepad`)}</td>
            <td className="px-4 py-2.5">{t(`pages.faq.controls.rows.${row.id}.touch`)}</td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}

/** Content shown after the text of some answers. */
const EXTRAS: Record<string, ReactNode> = {
  'driving-controls': <ControlsTable />,
  'raffles-tickets': <TicketRules headingLevel={3} />,
};

function Chevron() {
  return (
    <svg
      viewBox="0 0 20 20"
      className="size-5 shrink-0 text-muted transition-transform duration-200 group-open:rotate-180 group-open:text-accent"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M5 7.5l5 5 5-5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

export default function Faq() {
  const { t } = useTranslation();
  const contact = useSupportContact();
  const groups = toGroups(
    t('pages.faq.groups', {
      returnObjects: true,
      minimumAge: MINIMUM_AGE,
      sessionMinutes: CAR_SESSION_DEFAULT_MINUTES,
      pingGreen: PING_THRESHOLDS_MS.green,
      pingYellow: PING_THRESHOLDS_MS.yellow,
      donationCap: TICKETS.donationCap,
      donationExpiryDays: TICKETS.donationExpiryDays,
      contact,
    }),
  );

  return (
    <article className="mx-auto max-w-3xl">
      <header>
        <h1 className="font-display text-3xl font-black tracking-tight italic sm:text-4xl">
          {t('pages.faq.title')}
        </h1>
        <p className="mt-4 text-lg leading-relaxed text-muted">
          <RichText text={t('pages.faq.intro', { contact })} />
        </p>
        <nav aria-labelledby="faq-toc" className="mt-6">
          <h2 id="faq-toc" className="sr-only">
            {t('pages.common.onThisPage')}
          </h2>
          <ul className="flex flex-wrap gap-2">
            {groups.map((group) => (
              <li key={group.id}>
                <a
                  href={`#faq-${group.id}`}
                  className="inline-flex rounded-full border border-line bg-surface px-3 py-1.5 text-sm font-medium text-fg no-underline hover:border-accent hover:text-accent"
                >
                  {group.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>

      <div className="mt-10 space-y-10">
        {groups.map((group) => (
          <section key={group.id} aria-labelledby={`faq-${group.id}`}>
            <h2
              id={`faq-${group.id}`}
              className="scroll-mt-24 border-l-4 border-accent pl-3 text-xl font-bold tracking-tight text-fg"
            >
              {group.title}
            </h2>
            <div className="mt-4 divide-y divide-line overflow-hidden rounded-2xl border border-line bg-surface shadow-sm">
              {group.items.map((item) => (
                <details key={item.id} id={`faq-${item.id}`} className="group scroll-mt-24">
                  <summary className="flex cursor-pointer list-none items-center justify-between gap-4 px-5 py-4 font-semibold text-fg hover:bg-surface-2 focus-visible:-outline-offset-2 group-open:text-accent [&::-webkit-details-marker]:hidden">
                    {item.q}
                    <Chevron />
                  </summary>
                  <div className="space-y-4 px-5 pt-1 pb-6 leading-relaxed text-fg/90">
                    <Blocks value={item.a} />
                    {EXTRAS[item.id]}
                  </div>
                </details>
              ))}
            </div>
          </section>
        ))}
      </div>
    </article>
  );
}
