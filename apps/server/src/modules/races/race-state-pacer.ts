/**
 * How often the race state is published (issue 23): every `race.changed` goes to every event
 * socket on every instance, and a participant's pings and ready toggles change the state as often
 * as they are sent. A state whose only changes since the last one published are ready flags and
 * pings goes out at most once per CONTROL_LIMITS.raceStateIntervalMs: the first at once, the next
 * ones held, the latest replacing the one held, and published when the interval since the last
 * one ends — so the end of a burst reaches everyone at most one interval late. Anything else (the
 * status, the countdown's second, the race's end time, who takes part, the raffle status) is
 * published at once, with whatever was held. The timer is the injected clock's (tests move it).
 */
import { CONTROL_LIMITS, type RaceState } from '@telerace/protocol';
import type { Clock, ClockTimer } from '../../clock.js';

/** Whether `next` differs from `last` only by participants' ready flags and pings. */
export function onlyReadyOrPingChanged(last: RaceState, next: RaceState): boolean {
  if (
    last.race_id !== next.race_id ||
    last.race_status !== next.race_status ||
    last.raffle_status !== next.raffle_status ||
    last.race_expires_at !== next.race_expires_at ||
    last.countdown_value !== next.countdown_value ||
    last.participants.length !== next.participants.length
  )
    return false;
  return last.participants.every((before, i) => {
    const after = next.participants[i];
    return (
      after !== undefined &&
      before.userId === after.userId &&
      before.carId === after.carId &&
      before.username === after.username &&
      before.carName === after.carName
    );
  });
}

export class RaceStatePacer {
  #last: RaceState | null = null;
  #lastAt = 0;
  #held: RaceState | null = null;
  #timer: ClockTimer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly publish: (state: RaceState) => void,
    readonly intervalMs: number = CONTROL_LIMITS.raceStateIntervalMs,
  ) {}

  /** A new state: published now, or held until the interval since the last one ends. */
  offer(state: RaceState): void {
    const now = this.clock.now().getTime();
    const last = this.#last;
    const paced = last !== null && onlyReadyOrPingChanged(last, state);
    if (!paced || (this.#timer === undefined && now - this.#lastAt >= this.intervalMs)) {
      this.publishNow(state);
      return;
    }
    this.#held = state;
    this.#timer ??= this.clock.setTimeout(
      () => {
        this.#timer = undefined;
        if (this.#held) this.publishNow(this.#held);
      },
      this.#lastAt + this.intervalMs - now,
    );
  }

  /** Publishes `state` now, whatever was published last (a new leader's truth); drops what was held. */
  publishNow(state: RaceState): void {
    this.cancel();
    this.#last = state;
    this.#lastAt = this.clock.now().getTime();
    this.publish(state);
  }

  /** Forgets a held state and its timer (the engine stops, or follows another instance's). */
  cancel(): void {
    this.clock.clear(this.#timer);
    this.#timer = undefined;
    this.#held = null;
  }
}
