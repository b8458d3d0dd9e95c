/**
 * What `telerace-car doctor` prints and decides, kept pure: one line per check (✓, ✗ with the
 * reason and the fix, or – when the check does not apply), the verdicts on measured numbers
 * (clock offset, frame rates, the uplink's loss and round trip) and the exit code.
 */

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  status: CheckStatus;
  /** What was found: the measure when it passed, the reason when it failed or was skipped. */
  detail: string;
  /** What the operator does about a failure. */
  fix?: string;
}

export const pass = (detail: string): CheckResult => ({ status: 'pass', detail });
export const fail = (detail: string, fix: string): CheckResult => ({ status: 'fail', detail, fix });
export const skip = (detail: string): CheckResult => ({ status: 'skip', detail });

const MARK: Record<CheckStatus, string> = { pass: '✓', fail: '✗', skip: '–' };

/** `✓ 1 server reachable: …`, `✗ 2 car socket: … → fix`, `– 4 drive channel: skipped, …`. */
export function formatLine(number: number, name: string, result: CheckResult): string {
  const head = `${MARK[result.status]} ${number} ${name}: `;
  if (result.status === 'skip') return `${head}skipped, ${result.detail}`;
  if (result.status === 'fail') return `${head}${result.detail} → ${result.fix ?? 'see docs/car.md'}`;
  return `${head}${result.detail}`;
}

/** 0 only when nothing failed (a skipped check is one the settings rule out, not a failure). */
export function exitCode(results: readonly CheckResult[]): 0 | 1 {
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}

export function summaryLine(results: readonly CheckResult[]): string {
  const failed = results.filter((r) => r.status === 'fail').length;
  const skipped = results.filter((r) => r.status === 'skip').length;
  const skippedText = skipped === 0 ? '' : ` (${skipped} skipped)`;
  return failed === 0
    ? `ready: every check passed${skippedText}`
    : `not ready: ${failed} of ${results.length} checks failed${skippedText}; fix them and run the doctor again`;
}

/** Passes and laps are stamped with the car's clock: the server ignores a pass 1 s ahead of its own. */
export const MAX_CLOCK_OFFSET_MS = 2_000;

/**
 * The car's clock against the server's `Date` header (whole seconds, truncated): the server's
 * time lies in [date, date + 1 s) when it answered, taken at the middle of the request.
 */
export function clockVerdict(serverDateMs: number, sentAtMs: number, receivedAtMs: number): CheckResult {
  const carMs = (sentAtMs + receivedAtMs) / 2;
  const offsetMs = Math.round(carMs - (serverDateMs + 500));
  const uncertaintyMs = Math.round(500 + (receivedAtMs - sentAtMs) / 2);
  const how = offsetMs >= 0 ? 'ahead of' : 'behind';
  const text = `car's clock ${(Math.abs(offsetMs) / 1000).toFixed(1)} s ${how} the server's (±${(uncertaintyMs / 1000).toFixed(1)} s)`;
  if (Math.abs(offsetMs) <= MAX_CLOCK_OFFSET_MS) return pass(text);
  return fail(
    `${text}, more than ${MAX_CLOCK_OFFSET_MS / 1000} s: passes and laps carry the car's time`,
    "synchronise the car's clock: sudo timedatectl set-ntp true (systemd-timesyncd needs the Internet, UDP 123)",
  );
}

/** A camera or an encoder "keeps up" at 80 % of the configured rate or more. */
export const MIN_RATE_RATIO = 0.8;

export function rateOk(measuredFps: number, configuredFps: number): boolean {
  return measuredFps >= configuredFps * MIN_RATE_RATIO;
}

export const fps = (value: number): string => `${value.toFixed(1)} fps`;

/** The value at percentile `p` (0–100) of `values`, nearest rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export const UPLINK_LIMITS = { lossPercent: 5, p99Ms: 300 } as const;

/** The uplink's verdict from the round trips of the answered probes out of `sent`. */
export function uplinkVerdict(sent: number, roundTripsMs: readonly number[], path: string): CheckResult {
  const lost = sent - roundTripsMs.length;
  const lossPercent = sent === 0 ? 100 : (100 * lost) / sent;
  const p50 = percentile(roundTripsMs, 50);
  const p99 = percentile(roundTripsMs, 99);
  const times =
    roundTripsMs.length === 0
      ? 'no answer'
      : `round trip p50 ${Math.round(p50)} ms, p99 ${Math.round(p99)} ms`;
  const text = `${times}, loss ${lossPercent.toFixed(1)} % (${lost} of ${sent} ${path})`;
  const bad: string[] = [];
  if (lossPercent > UPLINK_LIMITS.lossPercent) bad.push(`loss above ${UPLINK_LIMITS.lossPercent} %`);
  if (!(p99 <= UPLINK_LIMITS.p99Ms)) bad.push(`p99 above ${UPLINK_LIMITS.p99Ms} ms`);
  if (bad.length === 0) return pass(text);
  return fail(
    `${text}: ${bad.join(', ')}`,
    "improve the car's link: Wi-Fi access point nearer the track and on a free channel, or a 4G modem with better signal; run the doctor again",
  );
}
