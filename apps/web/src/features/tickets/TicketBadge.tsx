/** The top bar's ticket count (spec §2): hidden until known and on failure; opens the ticket-info modal. */
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { useAuth } from '../auth/auth-context';
import { useTickets } from './tickets-api';

// The modal, with the ticket rules, is fetched when first opened: the top bar is in the first download.
const TicketInfoModal = lazy(() =>
  import('./TicketInfoModal').then(({ TicketInfoModal }) => ({ default: TicketInfoModal })),
);

function TicketIcon() {
  return (
    <svg
      viewBox="0 0 24 24"
      className="size-4 shrink-0"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      aria-hidden="true"
    >
      <path
        strokeLinejoin="round"
        d="M3 8a2 2 0 0 0 2-2h14a2 2 0 0 0 2 2v2a2 2 0 0 0 0 4v2a2 2 0 0 0-2 2H5a2 2 0 0 0-2-2v-2a2 2 0 0 0 0-4Z"
      />
      <path strokeLinecap="round" strokeDasharray="1.5 2.5" d="M15 7v10" />
    </svg>
  );
}

export function TicketBadge() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const { data, isError } = useTickets(user?.id ?? null);
  const [open, setOpen] = useState(false);
  // A failed refetch hides the badge, but never pulls an open modal from under the reader.
  if (!data || (isError && !open)) return null;
  return (
    <>
      <button
        type="button"
        data-testid="ticket-badge"
        aria-label={t('tickets.badge', { total: data.tickets })}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
        className={cx(
          'inline-flex h-8 shrink-0 items-center gap-1.5 rounded-full border border-accent/40 bg-accent/10 px-2.5 text-xs font-bold text-accent tabular-nums sm:h-9 sm:px-3 sm:text-sm',
          'transition-colors hover:bg-accent/20 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring',
        )}
      >
        <TicketIcon />
        {data.tickets.toLocaleString(i18n.resolvedLanguage)}
      </button>
      {open && (
        <Suspense fallback={null}>
          <TicketInfoModal open onClose={() => setOpen(false)} tickets={data} />
        </Suspense>
      )}
    </>
  );
}
