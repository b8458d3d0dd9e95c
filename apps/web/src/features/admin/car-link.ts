/**
 * How a car's drive link looks to the streamer (issue 42): from the figures the car reports in its
 * telemetry, "good", "degraded" (amber: drivers may notice) or "bad" (red: they will), and why.
 * The bounds: the drive path's own goals (docs/performance.md) — a round trip past 150 ms or a
 * channel losing 2 % already shows on the picture and in the steering; a deadman trip is a car
 * that stopped under its driver.
 */
import { isVideoLowered, type Telemetry } from '@telerace/protocol';

export type LinkHealth = 'good' | 'degraded' | 'bad';
export type LinkIssue = 'rtt' | 'loss' | 'deadman' | 'fps' | 'videoLowered' | 'videoLoss';

/** [degraded from, bad from] for each figure that grows worse upwards; fps grows worse downwards. */
export const LINK_BOUNDS = {
  rttMs: [150, 300],
  lossPercent: [2, 10],
  deadmanTrips: [1, 5],
  fps: [20, 10],
  /** % of the video's packets the uplink lost that repair could not bring back (issue 43). */
  unrepairedPercent: [1, 5],
} as const;

const rank: Record<LinkHealth, number> = { good: 0, degraded: 1, bad: 2 };

/** The link's health and the figures that made it so (none when good). */
export function linkHealth(telemetry: Pick<Telemetry, 'link' | 'fps' | 'video'>): {
  health: LinkHealth;
  issues: LinkIssue[];
} {
  const verdicts: [LinkIssue, LinkHealth][] = [];
  const above = (value: number | undefined, [degraded, bad]: readonly [number, number]): LinkHealth =>
    value === undefined ? 'good' : value >= bad ? 'bad' : value >= degraded ? 'degraded' : 'good';
  const { link, fps, video } = telemetry;
  verdicts.push(['rtt', above(link?.rttMs, LINK_BOUNDS.rttMs)]);
  verdicts.push(['loss', above(link?.lossPercent, LINK_BOUNDS.lossPercent)]);
  verdicts.push(['deadman', above(link?.deadmanTrips, LINK_BOUNDS.deadmanTrips)]);
  const [fpsDegraded, fpsBad] = LINK_BOUNDS.fps;
  verdicts.push([
    'fps',
    fps === undefined ? 'good' : fps < fpsBad ? 'bad' : fps < fpsDegraded ? 'degraded' : 'good',
  ]);
  verdicts.push(['videoLowered', isVideoLowered(video) ? 'degraded' : 'good']);
  verdicts.push(['videoLoss', above(video?.unrepairedPercent, LINK_BOUNDS.unrepairedPercent)]);
  const issues = verdicts.filter(([, verdict]) => verdict !== 'good');
  const health = issues.reduce<LinkHealth>(
    (worst, [, verdict]) => (rank[verdict] > rank[worst] ? verdict : worst),
    'good',
  );
  return { health, issues: issues.map(([issue]) => issue) };
}
