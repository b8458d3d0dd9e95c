/** The driver's readouts: connection state, ping and the car's telemetry (text, not colour only). */
import { isVideoLowered, PING_THRESHOLDS_MS, type Telemetry } from '@telerace/protocol';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ControlConnection } from '../../lib/control-socket';
import { cx } from '../../lib/cx';
import type { SessionEnd } from './session-end';

export type PingTone = 'good' | 'fair' | 'poor';

/** Under 100 ms green, up to 250 ms yellow, above red (spec §9). */
export function pingTone(ms: number): PingTone {
  if (ms < PING_THRESHOLDS_MS.green) return 'good';
  if (ms <= PING_THRESHOLDS_MS.yellow) return 'fair';
  return 'poor';
}

const pillShape = 'inline-flex items-center gap-1.5 rounded-full border px-2.5 py-1 text-xs font-bold';
const pill = `${pillShape} whitespace-nowrap`;

export type ConnectionView = ControlConnection | 'reconnecting';

const CONNECTION_STYLES: Record<ConnectionView, string> = {
  connected: 'border-success/40 bg-success/15 text-success',
  connecting: 'border-warning/40 bg-warning/15 text-warning',
  reconnecting: 'border-warning/40 bg-warning/15 text-warning',
  disconnected: 'border-danger/40 bg-danger/15 text-danger',
};

export function ConnectionIndicator({ connection }: { connection: ConnectionView }) {
  const { t } = useTranslation();
  return (
    <span className={cx(pill, CONNECTION_STYLES[connection])} data-testid="connection-state" role="status">
      <span
        className={cx(
          'size-2 rounded-full bg-current',
          connection !== 'connected' && connection !== 'disconnected' && 'animate-pulse',
        )}
        aria-hidden="true"
      />
      {t(`control.connection.${connection}`)}
    </span>
  );
}

const PING_STYLES: Record<PingTone, string> = {
  good: 'border-success/40 bg-success/15 text-success',
  fair: 'border-warning/40 bg-warning/15 text-warning',
  poor: 'border-danger/40 bg-danger/15 text-danger',
};

export function PingReadout({ ms }: { ms: number | null }) {
  const { t } = useTranslation();
  if (ms === null) {
    return (
      <span className={cx(pill, 'border-line bg-surface-2 text-muted')} data-testid="ping">
        {t('control.ping.unknown')}
      </span>
    );
  }
  const tone = pingTone(ms);
  return (
    <span
      className={cx(pill, PING_STYLES[tone])}
      data-testid="ping"
      data-tone={tone}
      title={t(`control.ping.${tone}`)}
    >
      {t('control.ping.value', { ms })}
      <span className="sr-only"> ({t(`control.ping.${tone}`)})</span>
    </span>
  );
}

/** Below this many frames per second the camera's rate is shown as a warning. */
export const LOW_CAMERA_FPS = 15;

export function TelemetryReadout({ telemetry }: { telemetry: Telemetry | null }) {
  const { t, i18n } = useTranslation();
  const number = (value: number, digits: number) =>
    new Intl.NumberFormat(i18n.resolvedLanguage, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(value);
  const speed = telemetry?.speed;
  const battery = telemetry?.battery;
  // Only a car with a camera streaming reports it; a low rate explains a jerky picture.
  const fps = telemetry?.fps;
  // The car lowers its bitrate on a narrow uplink (issue 43): a softer picture, said so.
  const video = telemetry?.video;
  const lowered = isVideoLowered(video);
  return (
    <dl className="flex flex-wrap gap-2 text-xs">
      <div className={cx(pill, 'border-line bg-surface/85 text-fg')}>
        <dt className="font-semibold text-muted">{t('control.telemetry.speed')}</dt>
        <dd data-testid="telemetry-speed" className="tabular-nums">
          {speed === undefined ? '—' : t('control.telemetry.speedValue', { value: number(speed, 2) })}
        </dd>
      </div>
      <div className={cx(pill, 'border-line bg-surface/85 text-fg')}>
        <dt className="font-semibold text-muted">{t('control.telemetry.battery')}</dt>
        <dd
          data-testid="telemetry-battery"
          className={cx('tabular-nums', battery !== undefined && battery < 20 && 'text-danger')}
        >
          {battery === undefined ? '—' : t('control.telemetry.batteryValue', { value: number(battery, 0) })}
        </dd>
      </div>
      {fps !== undefined && (
        // Not on a phone's small picture, where the stacked readouts would cover the track.
        <div className={cx(pill, 'border-line bg-surface/85 text-fg max-sm:hidden')}>
          <dt className="font-semibold text-muted">{t('control.telemetry.camera')}</dt>
          <dd
            data-testid="telemetry-fps"
            className={cx('tabular-nums', fps < LOW_CAMERA_FPS && 'text-warning')}
          >
            {video
              ? t('control.telemetry.cameraQuality', { fps: number(fps, 0), height: video.height })
              : t('control.telemetry.cameraValue', { value: number(fps, 0) })}
            {lowered && video && (
              <span data-testid="telemetry-video-lowered" className="text-warning">
                {' · '}
                {t('control.telemetry.cameraLowered', { value: number(video.bitrate, 0) })}
              </span>
            )}
          </dd>
        </div>
      )}
    </dl>
  );
}

/** m:ss of a remaining time, rounded up to the second and never negative. */
export function formatRemaining(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * Until when the driving session holds the car: the time left, ticking every second, or, for a
 * racer, until the race ends (session-end.ts). `compact`: a few words (the full-screen strip over
 * the video); a screen reader hears the whole sentence.
 */
export function SessionReadout({
  end,
  compact = false,
}: {
  end: Exclude<SessionEnd, null>;
  compact?: boolean;
}) {
  const { t } = useTranslation();
  if (end.kind === 'raceEnd') {
    return (
      // The one readout long enough to need two lines on a phone (in French).
      <span
        className={cx(pillShape, 'border-success/40 bg-success/15 text-balance text-success')}
        data-testid="session-timer"
      >
        <Worded
          text={t('control.session.untilRaceEnds')}
          short={compact ? t('control.session.untilRaceEndsShort') : null}
        />
      </span>
    );
  }
  return <SessionTimer endsAt={end.endsAt} compact={compact} />;
}

/** The text, or its short form shown with the text kept for screen readers. */
function Worded({ text, short }: { text: string; short: string | null }) {
  if (short === null) return text;
  return (
    <>
      <span aria-hidden="true">{short}</span>
      <span className="sr-only">{text}</span>
    </>
  );
}

function SessionTimer({ endsAt, compact }: { endsAt: string; compact: boolean }) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const end = Date.parse(endsAt);
  if (Number.isNaN(end)) return null;
  const left = end - now;
  const time = formatRemaining(left);
  return (
    <span
      className={cx(
        pill,
        'tabular-nums',
        left <= 60_000 ? 'border-danger/40 bg-danger/15 text-danger' : 'border-line bg-surface-2 text-fg',
      )}
      data-testid="session-timer"
      title={new Date(end).toLocaleString()}
    >
      <Worded
        text={t('control.session.left', { time })}
        short={compact ? t('control.session.leftShort', { time }) : null}
      />
    </span>
  );
}
