/**
 * The time every domain timer and every stored expiry is computed from. Services take a Clock
 * instead of calling Date.now()/setTimeout themselves, so a test moves time forward
 * (ManualClock in test/clock.ts) instead of rewriting timestamps in SQL, and a session's end,
 * a countdown and a race's end all read the same "now".
 */
export interface ClockTimer {
  unref?(): unknown;
}

export interface Clock {
  now(): Date;
  /** Runs `run` once, `ms` from now (never keeps the process alive). */
  setTimeout(run: () => void, ms: number): ClockTimer;
  /** Runs `run` every `ms` (never keeps the process alive). */
  setInterval(run: () => void, ms: number): ClockTimer;
  clear(timer: ClockTimer | undefined): void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  setInterval: (run, ms) => setInterval(run, ms).unref(),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
};

/** `minutes` after `from`. */
export function minutesAfter(from: Date, minutes: number): Date {
  return new Date(from.getTime() + minutes * 60_000);
}
