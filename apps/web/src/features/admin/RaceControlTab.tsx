/**
 * The admin Race Control tab, race half (spec §2, §4, §6; issue 12): the race's status, countdown
 * or time left, the participants with their ready state, ping and until when their car is theirs
 * (issue 23), the cars the lap counter in use cannot count (issue 40), the live leaderboard, the
 * lap counter; Start Race (only in a lobby with pilots, after a confirmation saying how many are
 * ready: RaceStartDialog), End Race (after a confirmation, while a race counts down or runs; Close
 * lobby in its place while a lobby is open), Sync names to the lap counter; and the race settings.
 * Read from GET /admin/race every 5 s, and live from the event socket between two reads. Errors
 * show the server's text, else the spec's fallbacks (§8); an action's message lasts as long as
 * the race state it was made in (issue 41 point 11). The raffle half (issue 13) is RaffleControl.
 */
import { type UseMutationResult, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type AdminRaceResponse, type RaceState, TIMERS_MS } from '@telerace/protocol';
import type { i18n as I18n, TFunction } from 'i18next';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TableLoading } from '../../components/table/table-states';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import { cx } from '../../lib/cx';
import { useAuth } from '../auth/auth-context';
import { apiErrorText } from '../auth/error-text';
import { type FormStatus, FormStatusAlert } from '../profile/form-status';
import { LiveLeaderboard } from '../race/LiveLeaderboard';
import { ParticipantsList } from '../race/ParticipantsList';
import { RaceTimer } from '../race/RaceTimer';
import { useRace } from '../race/use-race';
import { RaceSettingsForm } from './RaceSettingsForm';
import { RaceStartDialog } from './RaceStartDialog';
import { RaffleControl } from './RaffleControl';
import { ADMIN_RACE_KEY, endRace, fetchAdminRace, startRace, syncLapCounter } from './race-api';
import { UncountedCars } from './UncountedCars';

type RaceAction = 'start' | 'end' | 'sync';

/**
 * The stretch of the race a state belongs to: a lobby, its countdown, its run (each of one race),
 * or no race (idle, and the results being written after one). A message made in one is stale in
 * the next.
 */
function raceStage(state: RaceState): string {
  const { race_status: status, race_id: id } = state;
  return status === 'idle' || status === 'finishing' ? 'none' : `${status}:${id}`;
}

/** An action's outcome and the stages it is true in. */
type StagedResult = { status: FormStatus; stages: readonly string[] };

/** An action, with the stage it was made in and whether a lobby was open (End closes it). */
type RaceRun = { action: RaceAction; stage: string; inLobby: boolean };
type RaceOutcome = { synced: number } | { answer: AdminRaceResponse };

/** The last action's message and the stages it holds in, from the mutation's state. */
function stagedResult(
  mutation: UseMutationResult<RaceOutcome, Error, RaceRun>,
  t: TFunction,
  i18n: I18n,
): StagedResult | null {
  if (mutation.isError) {
    const { action, stage } = mutation.variables;
    return {
      status: { tone: 'error', text: apiErrorText(t, i18n, mutation.error, `raceControl.${action}Failed`) },
      stages: [stage],
    };
  }
  if (!mutation.isSuccess) return null;
  const { action, stage, inLobby } = mutation.variables;
  const outcome = mutation.data;
  if ('synced' in outcome) {
    return {
      status: { tone: 'success', text: t('raceControl.synced', { count: outcome.synced }) },
      stages: [stage],
    };
  }
  const done = action === 'start' ? 'started' : inLobby ? 'closed' : 'ended';
  // True from the answer's state on; the state before it until the event socket catches up.
  return {
    status: { tone: 'success', text: t(`raceControl.${done}`) },
    stages: [stage, raceStage(outcome.answer.state)],
  };
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="rounded-xl border border-line bg-surface-2/40 px-3 py-2">
      <dt className="text-xs font-semibold text-muted uppercase">{label}</dt>
      <dd className="mt-0.5 text-lg font-bold">{children}</dd>
    </div>
  );
}

export function RaceControlTab() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ADMIN_RACE_KEY,
    queryFn: fetchAdminRace,
    refetchInterval: TIMERS_MS.adminRefresh,
  });
  const live = useRace();
  const [confirmEnd, setConfirmEnd] = useState(false);
  const [confirmStart, setConfirmStart] = useState(false);
  const mutation = useMutation({
    mutationFn: async ({ action }: RaceRun): Promise<RaceOutcome> =>
      action === 'sync'
        ? { synced: await syncLapCounter() }
        : { answer: action === 'start' ? await startRace() : await endRace() },
    onSuccess: (outcome) => {
      if ('answer' in outcome) queryClient.setQueryData(ADMIN_RACE_KEY, outcome.answer);
    },
    onSettled: () => {
      setConfirmEnd(false);
      setConfirmStart(false);
      void queryClient.invalidateQueries({ queryKey: ADMIN_RACE_KEY });
    },
  });
  const busy = mutation.isPending ? mutation.variables.action : null;
  const result = stagedResult(mutation, t, i18n);
  // The event socket's state is newer than the last read whenever it has one.
  const state = live.state ?? query.data?.state;
  const stage = state ? raceStage(state) : null;
  // Once the race moves on, the message is gone for good (an idle stage comes back after the next
  // race): the run it came from is remembered as dismissed, during this render.
  const [dismissedAt, setDismissedAt] = useState(0);
  const stale = result !== null && stage !== null && !result.stages.includes(stage);
  if (stale && dismissedAt !== mutation.submittedAt) setDismissedAt(mutation.submittedAt);
  const current = result && !stale && dismissedAt !== mutation.submittedAt ? result.status : null;

  if (query.isPending || !state || stage === null) return <TableLoading />;
  if (query.isError && !query.data) return <Alert tone="error">{t('raceControl.loadFailed')}</Alert>;
  const data = query.data;
  const leaderboard = live.leaderboard.length > 0 ? live.leaderboard : data.leaderboard;
  const status = state.race_status;
  // Read every 5 s: a car whose driver left since is no longer in the race.
  const uncounted = data.uncountedCars.filter((car) => state.participants.some((p) => p.carId === car.carId));

  const inLobby = status === 'lobby';
  const canEnd = inLobby || status === 'countdown' || status === 'active';
  const run = (action: RaceAction) => mutation.mutate({ action, stage, inLobby });

  return (
    <div className="space-y-5">
      {query.isError && <Alert tone="warning">{t('raceControl.loadFailed')}</Alert>}
      <dl className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Fact label={t('raceControl.status')}>
          <span data-testid="admin-race-status" data-status={status}>
            {t(`race.status.${status}`)}
          </span>
        </Fact>
        <Fact label={status === 'active' ? t('raceControl.timeLeft') : t('raceControl.countdown')}>
          {status === 'active' && state.race_expires_at ? (
            <RaceTimer expiresAt={state.race_expires_at} />
          ) : status === 'countdown' && state.countdown_value !== null ? (
            <span className="font-mono" data-testid="admin-race-countdown">
              {state.countdown_value}
            </span>
          ) : (
            <span className="text-muted">—</span>
          )}
        </Fact>
        <Fact label={t('raceControl.participants')}>
          {inLobby ? (
            <span data-testid="admin-race-ready-count">
              {t('race.lobby.readyCount', { ready: state.readyCount, total: state.totalParticipants })}
            </span>
          ) : status === 'idle' ? (
            <span className="text-muted">—</span>
          ) : (
            <span data-testid="admin-race-racing">
              {t('raceControl.racing', { count: state.totalParticipants })}
            </span>
          )}
        </Fact>
        <Fact label={t('raceControl.lapCounter')}>
          <span className="block text-base">{t(`raceControl.lapCounterKinds.${data.lapCounter.kind}`)}</span>
          <span
            className={cx('text-sm', data.lapCounter.connected ? 'text-success' : 'text-danger')}
            data-testid="admin-lap-counter-state"
          >
            {data.lapCounter.connected ? t('raceControl.connected') : t('raceControl.notConnected')}
          </span>
        </Fact>
      </dl>

      <div className="flex flex-wrap items-center gap-2">
        <Button
          data-testid="race-start"
          disabled={!inLobby || state.totalParticipants === 0 || busy !== null}
          busy={busy === 'start'}
          title={
            !inLobby
              ? t('raceControl.startHint')
              : state.totalParticipants === 0
                ? t('raceControl.startEmptyHint')
                : undefined
          }
          onClick={() => setConfirmStart(true)}
        >
          {t('raceControl.start')}
        </Button>
        {/* Greyed out rather than a faded red when there is nothing to end. */}
        <Button
          variant={canEnd ? 'danger' : 'secondary'}
          data-testid="race-end"
          disabled={!canEnd || busy !== null}
          busy={busy === 'end'}
          title={canEnd ? undefined : t('raceControl.endHint')}
          onClick={() => setConfirmEnd(true)}
        >
          {t(inLobby ? 'raceControl.closeLobby' : 'raceControl.end')}
        </Button>
        <Button
          variant="secondary"
          data-testid="race-sync"
          disabled={busy !== null}
          busy={busy === 'sync'}
          onClick={() => run('sync')}
        >
          {t('raceControl.sync')}
        </Button>
      </div>
      <FormStatusAlert status={current} />

      <div className="grid gap-5 lg:grid-cols-2">
        <section aria-labelledby="admin-race-participants">
          <h3 id="admin-race-participants" className="mb-2 font-display text-lg font-black italic">
            {t('raceControl.participants')}
          </h3>
          <div className="mb-3 empty:hidden">
            <UncountedCars kind={data.lapCounter.kind} cars={uncounted} />
          </div>
          <ParticipantsList participants={state.participants} userId={user?.id ?? null} showCarUntil />
        </section>
        <section aria-labelledby="admin-race-leaderboard">
          <h3 id="admin-race-leaderboard" className="mb-2 font-display text-lg font-black italic">
            {t('raceControl.leaderboard')}
          </h3>
          <LiveLeaderboard rows={leaderboard} userId={user?.id ?? null} />
        </section>
      </div>

      <RaceSettingsForm />

      <RaffleControl />

      <RaceStartDialog
        open={confirmStart}
        onClose={() => setConfirmStart(false)}
        onStart={() => run('start')}
        busy={busy === 'start'}
        ready={state.readyCount}
        total={state.totalParticipants}
        uncounted={uncounted}
      />

      <Modal
        open={confirmEnd}
        onClose={() => setConfirmEnd(false)}
        size="sm"
        title={t(inLobby ? 'raceControl.closeTitle' : 'raceControl.endTitle')}
        description={t(inLobby ? 'raceControl.closeText' : 'raceControl.endText')}
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirmEnd(false)}>
              {t('raceControl.cancel')}
            </Button>
            <Button variant="danger" busy={busy === 'end'} onClick={() => run('end')}>
              {t(inLobby ? 'raceControl.closeLobby' : 'raceControl.end')}
            </Button>
          </>
        }
      />
    </div>
  );
}
