/**
 * The car's own deadman (docs/car.md "Safety"): it fires when the
 * server has been silent for `CONTROL_LIMITS.carDeadmanMs`. Any valid message re-arms it, since
 * the server repeats the last drive every 100 ms as a heartbeat.
 */
import { CONTROL_LIMITS } from '@telerace/protocol';

export class Deadman {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly onSilence: () => void,
    private readonly timeoutMs: number = CONTROL_LIMITS.carDeadmanMs,
  ) {}

  /** A message arrived from the server: restart the countdown. */
  heard(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onSilence();
    }, this.timeoutMs);
  }

  /** Stop counting (the socket is gone; the caller goes neutral itself). */
  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
