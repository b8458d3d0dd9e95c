/** The simulator backend: drive commands go to a simulated car on a 2-D track. */
import type { Telemetry } from '@telerace/protocol';
import { SimCar } from '../sim/sim-car.js';
import type { DriveBackend } from './backend.js';

/** The simulator has no radio: it reports a steady, good Wi-Fi signal. */
export const SIM_RSSI = -45;

export class SimBackend implements DriveBackend {
  constructor(readonly car: SimCar = new SimCar()) {}

  apply(throttle: number, steer: number): void {
    this.car.setInput(throttle, steer);
  }

  neutral(): void {
    this.car.setInput(0, 0);
  }

  async close(): Promise<void> {
    this.neutral();
    this.car.stop();
  }

  onPass(listener: (at: number) => void): void {
    this.car.on('lap', (lap) => listener(lap.at));
  }

  telemetry(): Telemetry {
    const { speed, battery } = this.car.state;
    return { speed: Math.round(speed * 100) / 100, battery: Math.round(battery * 10) / 10, rssi: SIM_RSSI };
  }
}
