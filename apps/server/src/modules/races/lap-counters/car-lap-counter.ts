/**
 * The `car` lap counter: each car reports its own finish-line crossings on the car socket
 * (`{type: 'pass', at}`), and the relay already publishes them as `lap.passed` facts with
 * `source: 'car'`. So this adapter has nothing to connect to, emits nothing itself, is always
 * reachable and keeps no names.
 */
import type { LapCounter } from '../lap-counter.js';

export class CarLapCounter implements LapCounter {
  readonly kind = 'car' as const;

  start(): void {}

  stop(): void {}

  isConnected(): boolean {
    return true;
  }

  async syncNames(): Promise<number> {
    return 0;
  }
}
