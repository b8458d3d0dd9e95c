/**
 * The admin Race Control tab, race half (spec §2, §4, §6; issue 12): the race's status, countdown
 * or time left, the participants with their ready state, ping and until when their car is theirs
 * (issue 23), the cars the lap counter in use cannot count (issue 40), the live leaderboard, the
 * lap counter; Start Race (only in lobby; confirmed when a car's laps cannot be counted), End Race
 * (after a confirmation, whenever a race is not idle), Sync names to the lap counter; and the race
 * settings. Read from GET /admin/race every 5 s, and live from the event socket between two reads.
 * Errors show the server's text, else the spec's fallbacks (§8). The raffle half (issue 13) is
 * RaffleControl.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type AdminRaceResponse, TIMERS_MS } from '@telerace/protocol';
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
import { RaffleControl } from './RaffleControl';
import { ADMIN_RACE_KEY, endRace, fetchAdminRace, startRace, syncLapCounter } from './race-api';
import { UncountedCars } from './UncountedCars';

type RaceAction = 'start' | 'end' | 'sync';

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
  const [busy, setBusy] = useState<RaceAction | null>(null);
  const [confirmEnd, setConfirmEnd] = useState(false);
  const [confirmStart, setConfirmStart] = useState(false);
  const [result, setResult] = useState<FormStatus>(null);

  if (query.isPending) return <TableLoading />;
  if (query.isError && !query.data) return <Alert tone="error">{t('raceControl.loadFailed')}</Alert>;
  const data = query.data;
  // The event socket's state is newer than the last read whenever it has one.
  const state = live.state ?? data.state;
  const leaderboard = live.leaderboard.length > 0 ? live.leaderboard : data.leaderboard;
  const status = state.race_status;
  // Read every 5 s: a car whose driver left since is no longer in the race.
  const uncounted = data.uncountedCars.filter((car) => state.participants.some((p) => p.carId === car.carId));

  const run = async (action: RaceAction) => {
    setBusy(action);
    setResult(null);
    try {
      if (action === 'sync') {
        const count = await syncLapCounter();
        setResult({ tone: 'success', text: t('raceControl.synced', { count }) });
      } else {
        const answer: AdminRaceResponse = action === 'start' ? await startRace() : await endRace();
        queryClient.setQueryData(ADMIN_RACE_KEY, answer);
        setResult({
          tone: 'success',
          text: t(action === 'start' ? 'raceControl.started' : 'raceControl.ended'),
        });
      }
    } catch (failure) {
      setResult({ tone: 'error', text: apiErrorText(t, i18n, failure, `raceControl.${action}Failed`) });
    } finally {
      setBusy(null);
      setConfirmEnd(false);
      setConfirmStart(false);
      void queryClient.invalidateQueries({ queryKey: ADMIN_RACE_KEY });
    }
  };

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
          <span data-testid="admin-race-ready-count">
            {t('race.lobby.readyCount', { ready: state.readyCount, total: state.totalParticipants })}
          </span>
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
          disabled={status !== 'lobby' || busy !== null}
          busy={busy === 'start'}
          title={status !== 'lobby' ? t('raceControl.startHint') : undefined}
          onClick={() => (uncounted.length > 0 ? setConfirmStart(true) : void run('start'))}
        >
          {t('raceControl.start')}
        </Button>
        <Button
          variant="danger"
          data-testid="race-end"
          disabled={status === 'idle' || busy !== null}
          busy={busy === 'end'}
          title={status === 'idle' ? t('raceControl.endHint') : undefined}
          onClick={() => setConfirmEnd(true)}
        >
          {t('raceControl.end')}
        </Button>
        <Button
          variant="secondary"
          data-testid="race-sync"
          disabled={busy !== null}
          busy={busy === 'sync'}
          onClick={() => void run('sync')}
        >
          {t('raceControl.sync')}
        </Button>
      </div>
      <FormStatusAlert status={result} />

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

      <Modal
        open={confirmStart}
        onClose={() => setConfirmStart(false)}
        size="sm"
        title={t('raceControl.startUncountedTitle')}
        description={t('raceControl.startUncountedText')}
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirmStart(false)}>
              {t('raceControl.cancel')}
            </Button>
            <Button busy={busy === 'start'} onClick={() => void run('start')}>
              {t('raceControl.startAnyway')}
            </Button>
          </>
        }
      >
        <ul className="list-disc space-y-0.5 pl-5 text-sm break-words">
          {uncounted.map((car) => (
            <li key={car.carId}>{car.carName}</li>
          ))}
        </ul>
      </Modal>

      <Modal
        open={confirmEnd}
        onClose={() => setConfirmEnd(false)}
        size="sm"
        title={t('raceControl.endTitle')}
        description={t('raceControl.endText')}
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirmEnd(false)}>
              {t('raceControl.cancel')}
            </Button>
            <Button variant="danger" busy={busy === 'end'} onClick={() => void run('end')}>
              {t('raceControl.end')}
            </Button>
          </>
        }
      />
    </div>
  );
}
