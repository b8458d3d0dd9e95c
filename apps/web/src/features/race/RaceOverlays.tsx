/**
 * The race on the control page (spec §2 "Overlays", §4 lobby join, race status, ready flag):
 * - over the video, never catching the pointer so driving stays free: the big countdown number
 *   and the race timer;
 * - beside the video (the driver's panel): Join race, joining, failed with Retry, the lobby card
 *   (ready toggle, "ready/total pilots ready", the pilots with their ping) and the live leaderboard.
 */
import type { RaceState } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Spinner } from '../../components/ui/Spinner';
import { socketErrorText } from '../auth/error-text';
import { LiveLeaderboard } from './LiveLeaderboard';
import { isParticipant, type LobbyJoinPhase } from './lobby-join';
import { ParticipantsList } from './ParticipantsList';
import { RaceTimer } from './RaceTimer';
import type { RaceSnapshot } from './race-store';

/** What shows over the video: nothing, the countdown number or the race clock. */
export function RaceVideoOverlay({ state }: { state: RaceState | null }) {
  const { t } = useTranslation();
  if (state?.race_status === 'countdown' && state.countdown_value !== null) {
    return (
      <div className="pointer-events-none absolute inset-0 grid place-items-center" aria-live="assertive">
        <span className="sr-only">{t('race.countdown.label')}</span>
        <span
          key={state.countdown_value}
          data-testid="race-countdown"
          className="font-display text-[min(40vw,12rem)] leading-none font-black text-white italic drop-shadow-[0_4px_12px_rgba(0,0,0,0.8)] motion-safe:animate-pulse"
        >
          {state.countdown_value}
        </span>
      </div>
    );
  }
  if (state?.race_status === 'active' && state.race_expires_at) {
    return (
      <div className="pointer-events-none absolute inset-x-0 top-20 flex justify-center">
        <span className="rounded-full bg-black/70 px-4 py-1 text-2xl text-white ring-1 ring-white/20 backdrop-blur">
          <RaceTimer expiresAt={state.race_expires_at} />
        </span>
      </div>
    );
  }
  return null;
}

export interface RacePanelProps {
  carId: number;
  userId: number | null;
  race: RaceSnapshot;
  phase: LobbyJoinPhase;
  onJoin: (carId: number) => void;
  onToggleReady: () => void;
  /** Leaves the lobby (a driver who only wants to drive). */
  onLeave: () => void;
}

export function RacePanel({ carId, userId, race, phase, onJoin, onToggleReady, onLeave }: RacePanelProps) {
  const { t } = useTranslation();
  const { state } = race;
  if (state === null) return null;
  const status = state.race_status;
  const joined = isParticipant(state, userId);
  return (
    <section
      aria-labelledby="race-panel-title"
      className="rounded-2xl border border-line bg-surface px-4 py-4 text-sm"
      data-testid="race-panel"
      data-status={status}
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id="race-panel-title" className="font-display text-lg font-black italic">
          {t('race.title')}
        </h2>
        <span
          className="rounded-md bg-surface-2 px-2 py-0.5 text-xs font-bold uppercase"
          data-testid="race-status"
        >
          {t(`race.status.${status}`)}
        </span>
      </div>
      <div className="mt-3 space-y-3">
        {joined ? (
          <JoinedView
            state={state}
            userId={userId}
            race={race}
            onToggleReady={onToggleReady}
            onLeave={onLeave}
          />
        ) : (
          <NotJoinedView
            state={state}
            carId={carId}
            phase={phase}
            onJoin={onJoin}
            race={race}
            userId={userId}
          />
        )}
      </div>
    </section>
  );
}

function JoinedView({
  state,
  userId,
  race,
  onToggleReady,
  onLeave,
}: {
  state: RaceState;
  userId: number | null;
  race: RaceSnapshot;
  onToggleReady: () => void;
  onLeave: () => void;
}) {
  const { t } = useTranslation();
  const me = state.participants.find((p) => p.userId === userId);
  if (state.race_status === 'lobby') {
    const ready = me?.isReady ?? false;
    return (
      <>
        <p className="font-semibold" data-testid="race-lobby-count" aria-live="polite">
          {t('race.lobby.readyCount', { ready: state.readyCount, total: state.totalParticipants })}
        </p>
        <Button
          variant={ready ? 'secondary' : 'primary'}
          className="w-full"
          aria-pressed={ready}
          data-testid="race-ready-toggle"
          onClick={onToggleReady}
        >
          {t('race.lobby.readyToggle')}
        </Button>
        <p className="text-xs text-muted">
          {ready ? t('race.lobby.waitingStart') : t('race.lobby.readyHint')}
        </p>
        <ParticipantsList participants={state.participants} userId={userId} />
        <Button variant="ghost" size="sm" className="w-full" data-testid="race-leave" onClick={onLeave}>
          {t('race.lobby.leave')}
        </Button>
      </>
    );
  }
  return <LiveLeaderboard rows={race.leaderboard} userId={userId} />;
}

function NotJoinedView({
  state,
  carId,
  phase,
  onJoin,
  race,
  userId,
}: {
  state: RaceState;
  carId: number;
  phase: LobbyJoinPhase;
  onJoin: (carId: number) => void;
  race: RaceSnapshot;
  userId: number | null;
}) {
  const { t, i18n } = useTranslation();
  if (phase.kind === 'joining') {
    return (
      <p className="flex items-center gap-2" role="status" data-testid="race-joining">
        <Spinner size="sm" className="text-accent" decorative />
        {t('race.joining')}
      </p>
    );
  }
  const open = state.race_status === 'idle' || state.race_status === 'lobby';
  return (
    <>
      {phase.kind === 'failed' && (
        <Alert tone="error" title={t('race.failed.title')}>
          <p>{phase.error ? socketErrorText(t, i18n, phase.error) : t('race.failed.timeout')}</p>
          <Button
            variant="secondary"
            size="sm"
            className="mt-2"
            data-testid="race-join-retry"
            onClick={() => onJoin(phase.carId)}
          >
            {t('race.failed.retry')}
          </Button>
        </Alert>
      )}
      {open && phase.kind !== 'failed' && (
        <>
          <p className="text-muted">
            {state.race_status === 'lobby'
              ? t('race.joinLobbyHint', { count: state.totalParticipants })
              : t('race.joinIdleHint')}
          </p>
          <Button className="w-full" data-testid="race-join" onClick={() => onJoin(carId)}>
            {t('race.join')}
          </Button>
        </>
      )}
      {!open && (
        <>
          <p className="text-muted">{t('race.spectating')}</p>
          <LiveLeaderboard rows={race.leaderboard} userId={userId} />
        </>
      )}
    </>
  );
}
