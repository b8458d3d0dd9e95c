/**
 * The recent events of the admin Integrations tab (issue 14), newest first: when, on which
 * platform, who, and what happened — a join command's outcome, a subscription (with its
 * cumulative months), a subscription's end, or a donation with the tickets it gave.
 */
import type { IntegrationEvent } from '@telerace/protocol';
import type { i18n as I18n, TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { TableEmpty } from '../../components/table/table-states';
import { formatRelativeTime } from '../../lib/relative-time';

const T = 'admin.integrations';

/** "5 USD": the amount in the reader's number format, then the currency's code as the server sent it. */
function amountText(language: string | undefined, amount: number | undefined, currency: string | undefined) {
  const value =
    amount === undefined ? '—' : new Intl.NumberFormat(language, { maximumFractionDigits: 2 }).format(amount);
  return currency ? `${value} ${currency}` : value;
}

function eventText(t: TFunction, i18n: I18n, event: IntegrationEvent): string {
  switch (event.kind) {
    case 'join':
      return t(`${T}.joinOutcomes.${event.outcome ?? 'entered'}`);
    case 'subscription':
      return event.months ? t(`${T}.subscribedMonths`, { count: event.months }) : t(`${T}.subscribed`);
    case 'subscription_end':
      return t(`${T}.subscriptionEnded`);
    case 'donation':
      return t(`${T}.donated`, {
        amount: amountText(i18n.resolvedLanguage, event.amount, event.currency),
        count: event.tickets ?? 0,
      });
  }
}

export function IntegrationEvents({ events, now }: { events: IntegrationEvent[]; now: Date }) {
  const { t, i18n } = useTranslation();
  // The server lists the newest first; sorting again keeps that true whatever it sends.
  const newestFirst = [...events].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  return (
    <section aria-labelledby="admin-integrations-events">
      <h3 id="admin-integrations-events" className="mb-2 font-display text-lg font-black italic">
        {t(`${T}.events`)}
      </h3>
      {newestFirst.length === 0 ? (
        <TableEmpty>{t(`${T}.noEvents`)}</TableEmpty>
      ) : (
        <ol
          aria-labelledby="admin-integrations-events"
          data-testid="integration-events"
          className="divide-y divide-line rounded-xl border border-line text-sm"
        >
          {newestFirst.map((event, index) => (
            <li
              // Two events may share a time and a viewer; their place in the list tells them apart.
              // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced whole on every read.
              key={`${event.at}-${index}`}
              data-kind={event.kind}
              className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5 px-3 py-2"
            >
              <time
                dateTime={event.at}
                title={new Date(event.at).toLocaleString(i18n.resolvedLanguage)}
                className="w-24 shrink-0 text-xs text-muted tabular-nums"
              >
                {formatRelativeTime(t, event.at, now)}
              </time>
              <span className="rounded-full border border-line bg-surface-2 px-2 text-xs font-semibold">
                {t(`${T}.names.${event.platform}`)}
              </span>
              <span className="font-semibold">{event.displayName}</span>
              <span>{eventText(t, i18n, event)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
