/**
 * The control page (spec §2 "Control page"): the car's live video (its status brings the video's
 * availability and pin; the player re-reads the status when Janus refuses the pin), twin
 * joysticks, keyboard and gamepad driving, connection state, ping and telemetry, and for admins
 * the car settings; and the race (features/race): the page joins the lobby by itself, and the
 * race's card (joining, failed, lobby, timer, live leaderboard) is on the video, or under it on
 * a screen held upright (issue 41), with the countdown on the video.
 * The video's frame is the driving surface (issue 25): in full screen, and on a phone held
 * sideways, it holds every overlay and, on a touch screen, both sticks over its lower corners.
 * One ping readout, the control link's (issue 41): in the header, or in full screen with the turn's
 * time and the connection state in a small strip in the video's top left corner.
 * Without the control token kept for this car in this tab, the driver is sent back to enter the code.
 */
import { useQuery } from '@tanstack/react-query';
import { type CarVideo, DISCONNECT_REASONS, SOCKET_CLOSE_CODES, TIMERS_MS } from '@telerace/protocol';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { LinkButton } from '../components/ui/LinkButton';
import { Panel } from '../components/ui/Panel';
import { useAuth } from '../features/auth/auth-context';
import { socketErrorText } from '../features/auth/error-text';
import {
  carStatusQueryKey,
  clearControlToken,
  fetchCarStatus,
  readControlToken,
  readVideoPin,
} from '../features/cars/cars-api';
import { StatusBadge } from '../features/cars/StatusBadge';
import { CarSettingsPanel } from '../features/control/CarSettingsPanel';
import { DriveMeter } from '../features/control/DriveMeter';
import { JoystickPanel, StageJoysticks } from '../features/control/Joysticks';
import {
  ConnectionIndicator,
  type ConnectionView,
  PingReadout,
  SessionReadout,
  TelemetryReadout,
} from '../features/control/readouts';
import { sessionEndOf } from '../features/control/session-end';
import { useControlSocket } from '../features/control/use-control-socket';
import { useDriveInput } from '../features/control/use-drive-input';
import { useFullScreen } from '../features/control/use-full-screen';
import { VideoPlayer } from '../features/control/VideoPlayer';
import { RaceCard, RaceCountdown, RacePanel } from '../features/race/RaceOverlays';
import { useLobbyJoin } from '../features/race/use-lobby-join';
import { useRace } from '../features/race/use-race';
import { PHONE_LANDSCAPE, PORTRAIT, TOUCH_SCREEN, useMediaQuery } from '../lib/use-media-query';

function BackButton() {
  const { t } = useTranslation();
  return (
    <LinkButton to="/car-selection" variant="secondary" size="sm">
      <span aria-hidden="true">←</span> {t('control.back')}
    </LinkButton>
  );
}

function MissingToken() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-xl">
      <Panel level={1} eyebrow={t('control.eyebrow')} title={t('control.noToken.title')}>
        <p className="text-muted">{t('control.noToken.text')}</p>
        <LinkButton to="/car-selection" className="mt-5">
          {t('control.noToken.link')}
        </LinkButton>
      </Panel>
    </div>
  );
}

/** A status without `video` comes from a server that has no video to offer. */
const NO_VIDEO: CarVideo = { available: false, pin: null };

/** Refused connection attempts in a row after which the driver is told the code may be stale. */
const TROUBLE_AFTER_ATTEMPTS = 3;

function SessionEnded({ code, reason }: { code: number; reason: string }) {
  const { t } = useTranslation();
  const known = DISCONNECT_REASONS.find((name) => name === reason);
  const text =
    code === SOCKET_CLOSE_CODES.replaced
      ? t('control.ended.replaced')
      : known
        ? t(`control.forceDisconnect.${known}`)
        : t('control.ended.text');
  return (
    <div className="mx-auto max-w-xl">
      <Panel level={1} eyebrow={t('control.eyebrow')} title={t('control.ended.title')}>
        <p className="text-muted" role="status">
          {text}
        </p>
        <LinkButton to="/car-selection" className="mt-5">
          {t('control.noToken.link')}
        </LinkButton>
      </Panel>
    </div>
  );
}

export default function Control() {
  const { carId = '', streamId = '' } = useParams();
  const controlToken = readControlToken(carId);
  if (!controlToken) return <MissingToken />;
  return <Driving key={carId} carId={carId} streamId={streamId} controlToken={controlToken} />;
}

function Driving({
  carId,
  streamId,
  controlToken,
}: {
  carId: string;
  streamId: string;
  controlToken: string;
}) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const hintId = useId();
  // The PIN kept at connect time starts the video while the status loads.
  const [storedVideo] = useState<CarVideo | undefined>(() => {
    const pin = readVideoPin(carId);
    return pin ? { available: true, pin } : undefined;
  });
  const carQuery = useQuery({
    queryKey: carStatusQueryKey(carId),
    queryFn: () => fetchCarStatus(carId),
    refetchInterval: TIMERS_MS.carListRefresh,
  });
  const { socket, state } = useControlSocket(carId, controlToken);
  const connection = state?.connection ?? 'connecting';
  const { merged, joystick, setJoystick, gamepadName } = useDriveInput(socket, connection === 'connected');
  const race = useRace();
  const lobbyJoin = useLobbyJoin(user?.id ?? null, Number(carId));
  const stageRef = useRef<HTMLDivElement>(null);
  const touch = useMediaQuery(TOUCH_SCREEN);
  const sideways = useMediaQuery(PHONE_LANDSCAPE);
  const upright = useMediaQuery(PORTRAIT);
  const fullScreen = useFullScreen(stageRef, { lockLandscape: touch });
  // Where the thumbs are: over the video when it fills a phone held sideways or the screen.
  const sticksOnStage = sideways || (fullScreen.active && touch);
  // A screen held upright shows a short video: the race card goes under it, not over it.
  const cardUnder = upright && !fullScreen.active;

  const wasConnected = state?.everConnected ?? false;
  const view: ConnectionView = connection === 'connecting' && wasConnected ? 'reconnecting' : connection;

  const ended = state?.ended ?? null;
  useEffect(() => {
    // The server ended this driving session: its control token is of no further use.
    if (ended && ended.code !== SOCKET_CLOSE_CODES.replaced) clearControlToken(carId);
  }, [ended, carId]);

  const car = carQuery.data;
  const online = state?.carOnline ?? (car ? car.status === 'online' : null);
  const sessionEnd = sessionEndOf(race.state, user?.id ?? null, Number(carId), car?.session_ends_at);
  if (ended) return <SessionEnded code={ended.code} reason={ended.reason} />;
  const trouble = !wasConnected && (state?.failedAttempts ?? 0) >= TROUBLE_AFTER_ATTEMPTS;
  // The turn's time, the connection and the ping: in the header, or in full screen on the video.
  const readouts = (
    <>
      {sessionEnd && <SessionReadout end={sessionEnd} compact={fullScreen.active} />}
      <ConnectionIndicator connection={view} />
      <PingReadout ms={state?.pingMs ?? null} />
    </>
  );
  const raceCard = (placement: 'over' | 'under') => (
    <RaceCard
      carId={Number(carId)}
      userId={user?.id ?? null}
      lobby={lobbyJoin}
      stickBelow={sticksOnStage}
      placement={placement}
    />
  );

  return (
    <div className="mx-auto max-w-7xl space-y-4 phone-landscape:space-y-2" data-testid="control-page">
      <header className="flex flex-wrap items-center gap-x-3 gap-y-2 phone-landscape:flex-nowrap">
        <BackButton />
        <h1 className="min-w-0 truncate font-display text-xl font-black tracking-tight italic sm:text-2xl">
          {car?.name ?? t('control.carFallback', { id: carId })}
        </h1>
        {online !== null && <StatusBadge online={online} />}
        {!fullScreen.active && (
          <div className="ml-auto flex flex-wrap items-center gap-2 phone-landscape:flex-nowrap">
            {readouts}
          </div>
        )}
        {sessionEnd?.kind === 'time' && sessionEnd.inLobby && (
          <p className="basis-full text-right text-xs text-muted phone-landscape:hidden">
            {t('control.session.lobbyNote')}
          </p>
        )}
      </header>

      {trouble && (
        <Alert tone="warning" title={t('control.trouble.title')}>
          <p>{t('control.trouble.text')}</p>
          <LinkButton to="/car-selection" variant="secondary" size="sm" className="mt-2">
            {t('control.noToken.link')}
          </LinkButton>
        </Alert>
      )}

      {state?.error && (
        <Alert tone="error" title={t('control.serverError')}>
          {socketErrorText(t, i18n, state.error)}
        </Alert>
      )}

      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
        {/* On a wide screen the video stays short enough for the joysticks to fit under it. */}
        <div className="mx-auto w-full space-y-4 lg:max-w-[max(32rem,calc((100dvh-25rem)*16/9))]">
          <VideoPlayer
            video={car ? (car.video ?? NO_VIDEO) : storedVideo}
            streamId={car?.stream_id ?? Number(streamId)}
            onPinRejected={carQuery.refetch}
            topLeft={
              <>
                <TelemetryReadout telemetry={state?.telemetry ?? null} />
                {fullScreen.active && (
                  // The header is out of sight: its readouts come along, small, in this corner, one
                  // under the other like the speed and battery above (in a row that wrapped on a
                  // 360 px phone, their backing stayed as wide as the corner).
                  <div
                    className="mt-1.5 flex w-fit max-w-full flex-col items-start gap-1 rounded-2xl bg-surface/85 p-1"
                    data-testid="full-screen-hud"
                  >
                    {readouts}
                  </div>
                )}
              </>
            }
            bottom={sticksOnStage ? undefined : <DriveMeter input={merged} />}
            stageRef={stageRef}
            fullScreen={fullScreen}
            // A phone held sideways: the frame takes the height under the one-line header.
            className="phone-landscape:aspect-auto phone-landscape:h-[calc(100dvh-3.75rem)]"
          >
            <RaceCountdown />
            {!cardUnder && raceCard('over')}
            {sticksOnStage && <StageJoysticks joystick={joystick} onChange={setJoystick} />}
          </VideoPlayer>
          {cardUnder && raceCard('under')}
          {!sticksOnStage && (
            <JoystickPanel joystick={joystick} onChange={setJoystick} describedBy={hintId} />
          )}
        </div>

        <aside className="space-y-4">
          <RacePanel userId={user?.id ?? null} />
          {user?.is_admin && <CarSettingsPanel car={car} />}
          <section className="rounded-2xl border border-line bg-surface px-4 py-4 text-sm">
            <h2 className="font-display text-lg font-black italic">{t('control.help.title')}</h2>
            <dl className="mt-3 space-y-2">
              <div>
                <dt className="font-semibold">{t('control.help.keyboard')}</dt>
                <dd className="text-muted">
                  <kbd className="font-mono">W</kbd>/<kbd className="font-mono">S</kbd> ·{' '}
                  <kbd className="font-mono">↑</kbd>/<kbd className="font-mono">↓</kbd>{' '}
                  {t('control.help.throttleKeys')}
                  <br />
                  <kbd className="font-mono">A</kbd>/<kbd className="font-mono">D</kbd> ·{' '}
                  <kbd className="font-mono">←</kbd>/<kbd className="font-mono">→</kbd>{' '}
                  {t('control.help.steerKeys')}
                </dd>
              </div>
              <div>
                <dt className="font-semibold">{t('control.help.gamepad')}</dt>
                <dd className="text-muted">{t('control.help.gamepadText')}</dd>
                <dd className="mt-1 text-xs" data-testid="gamepad-state">
                  {gamepadName ? (
                    <span className="font-semibold text-success">{t('control.help.gamepadConnected')}</span>
                  ) : (
                    <span className="text-muted">{t('control.help.gamepadNone')}</span>
                  )}
                </dd>
              </div>
              <div>
                <dt className="font-semibold">{t('control.help.touch')}</dt>
                <dd className="text-muted">{t('control.help.touchText')}</dd>
              </div>
            </dl>
            <p className="mt-3 border-t border-line pt-3 text-xs text-muted">{t('control.help.safety')}</p>
          </section>
        </aside>
      </div>
    </div>
  );
}
