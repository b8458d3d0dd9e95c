/**
 * A car's drive link in Car Status (issue 42): the path its commands take, round trip, what its
 * drive channel lost over the last minute, its deadman trips today, the video it sends (its
 * picture, the bitrate it lowered for a narrow uplink, what the uplink lost — issue 43), and a
 * badge that turns amber or red before drivers complain (car-link.ts says when).
 */
import type { Telemetry } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { type LinkHealth, linkHealth } from './car-link';

const HEALTH_STYLES: Record<LinkHealth, string> = {
  good: 'border-success/40 bg-success/15 text-success',
  degraded: 'border-warning/40 bg-warning/15 text-warning',
  bad: 'border-danger/40 bg-danger/15 text-danger',
};

export function CarLinkSummary({ telemetry }: { telemetry: Telemetry }) {
  const { t, i18n } = useTranslation();
  const { link, fps, kbps, video } = telemetry;
  if (!link && fps === undefined) return null;
  const { health, issues } = linkHealth(telemetry);
  const number = (value: number, digits = 0) =>
    new Intl.NumberFormat(i18n.resolvedLanguage, { maximumFractionDigits: digits }).format(value);
  const figures = [
    link && t(link.channel ? 'carStatus.link.channel' : 'carStatus.link.socket'),
    link?.rttMs !== undefined && t('carStatus.link.rtt', { value: number(link.rttMs) }),
    link?.lossPercent !== undefined && t('carStatus.link.loss', { value: number(link.lossPercent, 1) }),
    link && t('carStatus.link.deadman', { count: link.deadmanTrips }),
  ].filter((figure): figure is string => typeof figure === 'string');
  // The video on a line of its own: one long line would widen the admin's table.
  const videoFigures = [
    fps !== undefined && t('carStatus.link.fps', { value: number(fps, 1) }),
    kbps !== undefined && t('carStatus.link.kbps', { value: number(kbps) }),
    video &&
      t('carStatus.link.video', {
        width: video.width,
        height: video.height,
        bitrate: number(video.bitrate),
        max: number(video.maxBitrate),
      }),
    video?.lossPercent !== undefined &&
      t('carStatus.link.videoLoss', {
        value: number(video.lossPercent, 1),
        unrepaired: number(video.unrepairedPercent ?? 0, 1),
      }),
  ].filter((figure): figure is string => typeof figure === 'string');
  return (
    <div className="space-y-0.5" data-testid="car-link" data-health={health}>
      <span
        className={cx(
          'inline-flex items-center gap-1 rounded-full border px-1.5 py-px text-[0.7rem] font-bold uppercase tracking-wide',
          HEALTH_STYLES[health],
        )}
      >
        <span className="size-1.5 rounded-full bg-current" aria-hidden="true" />
        {t(`carStatus.link.health.${health}`)}
      </span>
      {figures.length > 0 && <div className="text-muted">{figures.join(' · ')}</div>}
      {videoFigures.length > 0 && <div className="text-muted">{videoFigures.join(' · ')}</div>}
      {issues.length > 0 && (
        <div className={health === 'bad' ? 'font-semibold text-danger' : 'font-semibold text-warning'}>
          {issues.map((issue) => t(`carStatus.link.issue.${issue}`)).join(', ')}
        </div>
      )}
    </div>
  );
}
