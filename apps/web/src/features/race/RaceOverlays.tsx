/**
 * The race on the control page (spec §2 "Overlays", §4 lobby join, race status, ready flag):
 * - over the video (inside the full-screen element, so a driver in full screen has all of it):
 *   the big countdown number in the upper band (`RaceCountdown`);
 * - the driver's race card (`RaceCard`) with what the driver can do or must know now — Join
 *   race, joining, failed with Retry, the lobby (ready toggle, "ready/total pilots ready",
 *   leave), the race timer with the live leaderboard. Where the video is wide (a desktop, a
 *   phone held sideways, full screen) it is over the video at the top right, under the volume
 *   and full-screen controls, clear of the centre of the road; where the video is short and the
 *   page's width (a screen held upright) it is a strip under the video (issue 41: over it, it hid
 *   40 % of the picture and its controls);
 * - beside the video (`RacePanel`): the details a glance at the video does not need — the
 *   race's status, the pilots, the full live leaderboard with the last lap.
 * Each reads the race from the race store (`useRace`); the page hands the card its lobby join.
 */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { buttonClasses } from '../../components/ui/button-styles';
import { Spinner } from '../../components/ui/Spinner';
import { cx } from '../../lib/cx';
import { socketErrorText } from '../auth/error-text';
import { LiveLeaderboard, OverlayLeaderboard } from './LiveLeaderboard';
import { isParticipant } from './lobby-join';
import { ParticipantsList } from './ParticipantsList';
import { RaceTimer } from './RaceTimer';
import type { LobbyJoinHandle } from './use-lobby-join';
import { useRace, useRaceStore } from './use-race';

export interface RaceOverlayProps {
  carId: number;
  userId: number | null;
  /** The page's lobby join (its phase, join, and leave for a driver who only wants to drive). */
  lobby: LobbyJoinHandle;
  /** The steering stick sits in the video's lower right corner: the card stops above it. */
  stickBelow?: boolean;
  /** `over` the video's top right corner, or a strip `under` the video (a screen held upright). */
  placement?: 'over' | 'under';
}

/** The big countdown number over the video, while the race counts down. */
export function RaceCountdown() {
  const { t } = useTranslation();
  const race = useRace();
  const value = race.state?.race_status === 'countdown' ? race.state.countdown_value : null;
  if (value === null || value === undefined) return null;
  return (
    // The upper third of the picture at any shape of it (5 % from the top, at most 27 % of its
    // height tall): the car and the road ahead of it, its middle, stay in sight (issue 41).
    <div
      className="pointer-events-none absolute inset-x-0 top-[5%] flex justify-center"
      aria-live="assertive"
    >
      <span className="sr-only">{t('race.countdown.label')}</span>
      <span
        key={value}
        data-testid="race-countdown"
        className="font-display text-[min(18cqw,27cqh,9rem)] leading-none font-black text-white italic drop-shadow-[0_4px_12px_rgba(0,0,0,0.8)] motion-safe:animate-pulse"
      >
        {value}
      </span>
    </div>
  );
}

const overlayFocus = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[#22d3ee]';
const overlayButton = cx('w-full', overlayFocus);

/** The driver's race card: what the driver can do or must know about the race now. */
export function RaceCard({ carId, userId, lobby, stickBelow = false, placement = 'over' }: RaceOverlayProps) {
  const { t, i18n } = useTranslation();
  const store = useRaceStore();
  const race = useRace();
  const { phase, join: onJoin, leave: onLeave } = lobby;
  const onToggleReady = () => store.toggleReady();
  const { state } = race;
  if (state === null) return null;
  const under = placement === 'under';
  const status = state.race_status;
  const joined = isParticipant(state, userId);
  const open = status === 'idle' || status === 'lobby';
  let body: ReactNode = null;
  if (status === 'active' && state.race_expires_at) {
    body = (
      <>
        <p className="flex items-center justify-between gap-3">
          <span className="text-white/75">
            {t(joined ? 'race.status.active' : 'race.overlay.spectating')}
          </span>
          <RaceTimer expiresAt={state.race_expires_at} className="text-base sm:text-xl" onDark />
        </p>
        <OverlayLeaderboard rows={race.leaderboard} userId={userId} />
      </>
    );
  } else if (joined && status === 'lobby') {
    const me = state.participants.find((p) => p.userId === userId);
    const ready = me?.isReady ?? false;
    const count = (
      <p className="font-semibold" data-testid="race-lobby-count" aria-live="polite">
        {t('race.lobby.readyCount', { ready: state.readyCount, total: state.totalParticipants })}
      </p>
    );
    const readyToggle = (
      <button
        type="button"
        className={cx(
          buttonClasses(ready ? 'secondary' : 'primary', 'wrap'),
          under ? overlayFocus : overlayButton,
        )}
        aria-pressed={ready}
        data-testid="race-ready-toggle"
        onClick={onToggleReady}
      >
        {ready && <span aria-hidden="true">✓ </span>}
        {t('race.lobby.readyToggle')}
      </button>
    );
    const leaveIcon = (
      <button
        type="button"
        className={cx(
          'inline-flex shrink-0 items-center justify-center rounded-full text-white/80 hover:bg-white/15 hover:text-white',
          // Under the video, a thumb's size; over a tall video the line below says it in words.
          under ? 'size-9' : 'size-6 -mt-0.5 -mr-1 [@container(min-height:14rem)]:hidden',
          overlayFocus,
        )}
        aria-label={t('race.lobby.leave')}
        title={t('race.lobby.leave')}
        onClick={onLeave}
      >
        <span aria-hidden="true">✕</span>
      </button>
    );
    body = under ? (
      // One line under the video: the count, the toggle, leave.
      <div className="flex items-center gap-3">
        <div className="min-w-0 flex-1">{count}</div>
        {readyToggle}
        {leaveIcon}
      </div>
    ) : (
      <>
        <div className="flex items-start justify-between gap-2">
          {count}
          {/* A short video (a phone held upright in full screen): leaving is this small button. */}
          {leaveIcon}
        </div>
        {readyToggle}
        <button
          type="button"
          className={cx(
            'hidden w-full rounded-md px-1 py-1 text-white/80 underline underline-offset-2 hover:text-white',
            '[@container(min-height:14rem)]:block',
            overlayButton,
          )}
          data-testid="race-leave"
          onClick={onLeave}
        >
          {t('race.lobby.leave')}
        </button>
      </>
    );
  } else if (!joined && phase.kind === 'joining') {
    body = (
      <p className="flex items-center gap-2" role="status" data-testid="race-joining">
        <Spinner size="sm" className="text-white" decorative />
        {t('race.joining')}
      </p>
    );
  } else if (!joined && phase.kind === 'failed') {
    body = (
      <div role="alert" className="space-y-1.5">
        <p className="font-semibold text-[#fca5a5]">{t('race.failed.title')}</p>
        <p className="text-white/85">
          {phase.error ? socketErrorText(t, i18n, phase.error) : t('race.failed.timeout')}
        </p>
        <button
          type="button"
          className={cx(buttonClasses('primary', 'wrap'), overlayButton)}
          data-testid="race-join-retry"
          onClick={() => onJoin(phase.carId)}
        >
          {t('race.failed.retry')}
        </button>
      </div>
    );
  } else if (!joined && open) {
    body = (
      <button
        type="button"
        className={cx(buttonClasses('primary', 'wrap'), overlayButton)}
        data-testid="race-join"
        onClick={() => onJoin(carId)}
      >
        {t('race.join')}
      </button>
    );
  }
  if (body === null) return null;
  return (
    <section
      aria-label={t('race.title')}
      // The leaderboard may outgrow the card and scroll: reachable by keyboard too.
      tabIndex={status === 'active' ? 0 : undefined}
      data-testid="race-overlay"
      data-status={status}
      data-placement={placement}
      className={cx(
        'space-y-2 rounded-xl px-2.5 py-2 text-white ring-1 ring-white/15 sm:px-3',
        under
          ? // A strip of the player's own black under the picture, in either theme.
            'bg-[#07080b] text-sm'
          : cx(
              // Under the volume and full-screen controls, at the right edge; a long leaderboard
              // scrolls inside the card rather than reaching the sticks.
              'absolute top-12 right-2 w-max max-w-[40%] overflow-y-auto bg-black/75 text-xs sm:top-16 sm:right-3 sm:max-w-[min(36%,18rem)] sm:text-sm',
              stickBelow
                ? 'max-h-[calc(100%-4rem-9.5rem)]'
                : 'max-h-[calc(100%-4rem)] sm:max-h-[calc(100%-9rem)]',
            ),
      )}
    >
      {body}
    </section>
  );
}

export interface RacePanelProps {
  userId: number | null;
}

/**
 * The race's details beside the video: status, the pilots, the full leaderboard. No pings: the
 * driver's own is the page's one ping readout (docs/decisions.md, issue 41); the pilots' pings
 * are for Race Control.
 */
export function RacePanel({ userId }: RacePanelProps) {
  const { t } = useTranslation();
  const race = useRace();
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
        {status === 'active' ? (
          <>
            {!joined && <p className="text-muted">{t('race.spectating')}</p>}
            <LiveLeaderboard rows={race.leaderboard} userId={userId} />
          </>
        ) : status === 'idle' ? (
          <p className="text-muted">{t('race.joinIdleHint')}</p>
        ) : (
          <>
            {status === 'lobby' && !joined && (
              <p className="text-muted">{t('race.joinLobbyHint', { count: state.totalParticipants })}</p>
            )}
            {status === 'lobby' && joined && (
              <p className="text-xs text-muted">
                {state.participants.find((p) => p.userId === userId)?.isReady
                  ? t('race.lobby.waitingStart')
                  : t('race.lobby.readyHint')}
              </p>
            )}
            <ParticipantsList participants={state.participants} userId={userId} showPing={false} />
          </>
        )}
      </div>
    </section>
  );
}
