/**
 * The raffle half of the admin Race Control tab (spec §2, §4 raffle status, §5 racers, §8; issue
 * 13): Start Raffle with the number of racers (enabled while no raffle is open), Draw Winners and
 * Abort Raffle (while one is open; both confirmed, the draw saying how many entries, tickets and
 * winners: issue 41 point 9), Clear expired wins (confirmed), a warning when winners from some
 * platform could not claim (issue 41 point 2), the entries as
 * they arrive, an "Add entry" form, the winners with their prize's claim state, and the draw's audit
 * data with a link to the public raffle page. Read from GET /admin/raffle every 5 s, and again at
 * once whenever the event socket's `raffle_status` changes. An action's error belongs to the
 * raffle's state that made it: it goes when the raffle moves on (issue 41 point 11).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type AdminRaffleResponse,
  DEFAULT_RAFFLE_RACERS,
  MAX_RAFFLE_RACERS,
  MIN_RAFFLE_RACERS,
  TIMERS_MS,
} from '@telerace/protocol';
import { type FormEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { TableLoading } from '../../components/table/table-states';
import { Alert } from '../../components/ui/Alert';
import { Button, type ButtonProps } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import { cx } from '../../lib/cx';
import { apiErrorText } from '../auth/error-text';
import { TextField } from '../auth/form-fields';
import { useUnconfiguredPlatforms } from '../auth/social-providers';
import { type FormStatus, FormStatusAlert } from '../profile/form-status';
import { useRace } from '../race/use-race';
import { RaffleAudit } from '../raffles/RaffleAudit';
import { RaffleEntriesTable } from '../raffles/RaffleEntriesTable';
import {
  ADMIN_RAFFLE_KEY,
  abortRaffle,
  clearExpiredWins,
  drawWinners,
  fetchAdminRaffle,
  raffleEntriesKey,
  startRaffle,
} from '../raffles/raffles-api';
import { RaffleClaimWarning } from './RaffleClaimWarning';
import { RaffleEntryForm } from './RaffleEntryForm';
import { RaffleWinners } from './RaffleWinners';

type RaffleAction = 'start' | 'draw' | 'abort' | 'clear';
/** The actions asked about first: they cannot be undone. */
type Confirmed = Exclude<RaffleAction, 'start'>;
/** The success message's key of each action. */
const DONE = { start: 'started', draw: 'drawn', abort: 'aborted', clear: 'cleared' } as const;
const CONFIRMED_CALLS: Record<Confirmed, () => Promise<AdminRaffleResponse | undefined>> = {
  draw: drawWinners,
  abort: abortRaffle,
  clear: clearExpiredWins,
};
const T = 'raceControl.raffle';

/** Which raffle, in which state: what an action's message belongs to. */
const raffleStateOf = (raffle: AdminRaffleResponse['raffle'] | undefined) =>
  raffle ? `${raffle.id}:${raffle.status}` : 'none';

/** The racers typed, or null when it is not a whole number in range. */
function parseRacers(text: string): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const value = Number(text);
  return value >= MIN_RAFFLE_RACERS && value <= MAX_RAFFLE_RACERS ? value : null;
}

/** A raffle action's button, named and tagged after its action; none works while another runs. */
function ActionButton({
  action,
  running,
  blocked = false,
  ...button
}: Omit<ButtonProps, 'children' | 'busy' | 'disabled'> & {
  action: RaffleAction;
  running: RaffleAction | null;
  /** The raffle's state does not allow the action now. */
  blocked?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Button
      className="mb-px"
      data-testid={`raffle-${action}`}
      disabled={blocked || running !== null}
      busy={running === action}
      {...button}
    >
      {t(`${T}.${action}`)}
    </Button>
  );
}

export function RaffleControl() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ADMIN_RAFFLE_KEY,
    queryFn: fetchAdminRaffle,
    refetchInterval: TIMERS_MS.adminRefresh,
  });
  const liveStatus = useRace().state?.raffle_status;
  const [racers, setRacers] = useState(String(DEFAULT_RAFFLE_RACERS));
  const [racersError, setRacersError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Confirmed | null>(null);
  const unclaimable = useUnconfiguredPlatforms();
  const shown = query.data?.raffle;
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ADMIN_RAFFLE_KEY });
    if (shown) void queryClient.invalidateQueries({ queryKey: raffleEntriesKey(shown.id) });
  };
  const mutation = useMutation({
    mutationFn: ({ call }: { action: RaffleAction; call: () => Promise<AdminRaffleResponse | undefined> }) =>
      call(),
    onSuccess: (answer) => {
      if (answer) queryClient.setQueryData(ADMIN_RAFFLE_KEY, answer);
    },
    onSettled: () => {
      setConfirming(null);
      refresh();
    },
  });
  const busy = mutation.isPending ? mutation.variables.action : null;
  const raffleState = raffleStateOf(shown);
  // The submit whose error the raffle moving on dismissed.
  const [dismissedAt, setDismissedAt] = useState(0);
  const [resultState, setResultState] = useState(raffleState);
  if (resultState !== raffleState) {
    // The raffle moved on (opened, drawn, aborted; maybe from another tab): an old error no longer holds.
    setResultState(raffleState);
    if (mutation.isError) setDismissedAt(mutation.submittedAt);
  }
  const result: FormStatus = mutation.isSuccess
    ? {
        tone: 'success',
        text: t(`${T}.${DONE[mutation.variables.action]}`, {
          count: mutation.data?.raffle?.winners.length ?? 0,
        }),
      }
    : mutation.isError && mutation.submittedAt !== dismissedAt
      ? {
          tone: 'error',
          text: apiErrorText(t, i18n, mutation.error, `${T}.${mutation.variables.action}Failed`),
        }
      : null;

  // The socket says the raffle opened or closed (maybe from another admin's tab): read it now.
  useEffect(() => {
    if (liveStatus) void queryClient.invalidateQueries({ queryKey: ADMIN_RAFFLE_KEY });
  }, [liveStatus, queryClient]);

  if (query.isPending) return <TableLoading />;
  // A warning, not an alert: the race half of the tab above still works without the raffle.
  if (query.isError && !query.data) return <Alert tone="warning">{t(`${T}.loadFailed`)}</Alert>;
  const { raffle, prizes } = query.data;
  const open = raffle?.status === 'open';
  const run = (action: RaffleAction, call: () => Promise<AdminRaffleResponse | undefined>) =>
    mutation.mutate({ action, call });

  const onStart = (event: FormEvent) => {
    event.preventDefault();
    const count = parseRacers(racers);
    if (count === null) {
      setRacersError(t(`${T}.racersInvalid`, { min: MIN_RAFFLE_RACERS, max: MAX_RAFFLE_RACERS }));
      return;
    }
    setRacersError(null);
    run('start', () => startRaffle(count));
  };

  const confirmAction = confirming ?? 'abort';
  // Entries that could win a prize they cannot claim: said again in the draw's confirmation.
  const stranded = raffle
    ? unclaimable.reduce((sum, platform) => sum + raffle.entriesByPlatform[platform], 0)
    : 0;
  const openHint = open ? undefined : t(`${T}.openHint`);
  return (
    <section
      className="space-y-4 rounded-xl border border-line p-3 sm:p-4"
      aria-labelledby="admin-raffle-title"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id="admin-raffle-title" className="font-display text-lg font-black italic">
          {t(`${T}.title`)}
          {raffle && (
            <span className="ml-2 text-sm text-muted not-italic">
              {t(`${T}.raffleNumber`, { id: raffle.id })}
            </span>
          )}
        </h3>
        <span
          data-testid="raffle-status"
          data-status={open ? 'open' : 'closed'}
          className={cx(
            'rounded-full px-2.5 py-0.5 text-xs font-bold uppercase',
            open ? 'bg-success/15 text-success' : 'bg-surface-2 text-muted',
          )}
        >
          {t(`${T}.statuses.${open ? 'open' : 'closed'}`)}
        </span>
      </div>
      {query.isError && <Alert tone="warning">{t(`${T}.loadFailed`)}</Alert>}
      <RaffleClaimWarning raffle={raffle} />

      <form noValidate onSubmit={onStart} className="flex flex-wrap items-end gap-2">
        <div className="w-40">
          <TextField
            label={t(`${T}.racers`)}
            data-testid="raffle-racers"
            type="number"
            inputMode="numeric"
            min={MIN_RAFFLE_RACERS}
            max={MAX_RAFFLE_RACERS}
            step={1}
            value={racers}
            disabled={open}
            error={racersError ?? undefined}
            onChange={(event) => setRacers(event.target.value)}
          />
        </div>
        <ActionButton
          action="start"
          running={busy}
          blocked={open}
          type="submit"
          title={open ? t(`${T}.startHint`) : undefined}
        />
        <ActionButton
          action="draw"
          running={busy}
          blocked={!open}
          title={openHint}
          onClick={() => setConfirming('draw')}
        />
        <ActionButton
          action="abort"
          running={busy}
          blocked={!open}
          variant="danger"
          title={openHint}
          onClick={() => setConfirming('abort')}
        />
        <ActionButton
          action="clear"
          running={busy}
          variant="secondary"
          onClick={() => setConfirming('clear')}
        />
      </form>
      <FormStatusAlert status={result} />

      {!raffle ? (
        <p className="text-sm text-muted">{t(`${T}.none`)}</p>
      ) : (
        <div className="grid gap-4 lg:grid-cols-2">
          <section aria-labelledby="admin-raffle-entries" className="min-w-0">
            <h4 id="admin-raffle-entries" className="mb-2 flex items-baseline gap-2 font-semibold">
              {t(`${T}.entries`)}
              <span className="text-sm font-normal text-muted" data-testid="raffle-entry-count">
                {t(`${T}.entryCount`, { count: raffle.entryCount })}
              </span>
            </h4>
            <RaffleEntriesTable raffleId={raffle.id} open={open} />
          </section>
          <RaffleWinners prizes={prizes} />
        </div>
      )}

      <RaffleEntryForm open={open} raffleState={raffleState} onAdded={refresh} />

      {raffle && (
        <section aria-labelledby="admin-raffle-audit" className="space-y-2">
          <h4 id="admin-raffle-audit" className="font-semibold">
            {t(`${T}.audit`)}
          </h4>
          <RaffleAudit
            raffle={raffle}
            texts={{
              commitment: t(`${T}.commitment`),
              entriesHash: t(`${T}.entriesHash`),
              seed: t(`${T}.seed`),
              pending: t(`${T}.revealedAtDraw`),
            }}
          />
          <Link
            to={`/raffles/${raffle.id}`}
            data-testid="raffle-page-link"
            className="inline-block text-sm font-semibold"
          >
            {t(`${T}.publicPage`)} <span aria-hidden="true">→</span>
          </Link>
        </section>
      )}

      <Modal
        open={confirming !== null}
        onClose={() => setConfirming(null)}
        size="sm"
        title={t(`${T}.${confirmAction}Title`)}
        description={
          confirmAction === 'draw' && raffle ? (
            <span data-testid="raffle-draw-summary">
              {t(`${T}.drawSummary`, {
                winners: t(`${T}.drawWinners`, { count: Math.min(raffle.racers, raffle.entryCount) }),
                entries: t(`${T}.drawEntries`, { count: raffle.entryCount }),
                tickets: t(`${T}.drawTickets`, { count: raffle.totalWeight }),
              })}{' '}
              {t(`${T}.drawText`)}
            </span>
          ) : (
            t(`${T}.${confirmAction}Text`)
          )
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirming(null)}>
              {t(`${T}.cancel`)}
            </Button>
            <Button
              variant={confirmAction === 'draw' ? 'primary' : 'danger'}
              busy={busy === confirmAction}
              data-testid={`raffle-confirm-${confirmAction}`}
              onClick={() => run(confirmAction, CONFIRMED_CALLS[confirmAction])}
            >
              {t(`${T}.${confirmAction}`)}
            </Button>
          </>
        }
      >
        {confirmAction === 'draw' && stranded > 0 && (
          <Alert tone="warning">{t(`${T}.drawStranded`, { count: stranded })}</Alert>
        )}
      </Modal>
    </section>
  );
}
