/**
 * The simulated car: a body on the track stepped at 60 Hz, with a battery that drains slowly.
 * Its state is exposed for the video renderer and the lap counter of later issues; `lap` fires
 * each time the car completes a lap forward over the finish line (backing over the line and
 * crossing it again does not count twice).
 */
import { EventEmitter } from 'node:events';
import { type BodyState, type CarPhysics, DEFAULT_PHYSICS, stepBody } from './physics.js';
import { createTrack, finishLineCrossing, isOnTrack, type Track } from './track.js';

export interface SimCarState extends BodyState {
  throttle: number;
  steer: number;
  onTrack: boolean;
  /** Net forward crossings of the finish line since the start. */
  lapCrossings: number;
  /** Percent, 100 at start. */
  battery: number;
}

export interface LapEvent {
  /** How many laps have been completed. */
  laps: number;
  /** Milliseconds since the epoch. */
  at: number;
}

/** Percent per second: idle electronics, and extra at full throttle. */
const BATTERY_IDLE_DRAIN = 0.002;
const BATTERY_DRIVE_DRAIN = 0.03;
export const SIM_HZ = 60;

export class SimCar extends EventEmitter<{ lap: [LapEvent] }> {
  readonly track: Track;
  private body: BodyState;
  private input = { throttle: 0, steer: 0 };
  private crossings = 0;
  private bestCrossings = 0;
  private battery = 100;
  private timer: NodeJS.Timeout | undefined;
  private lastTick = 0;

  constructor(
    track: Track = createTrack(),
    private readonly physics: CarPhysics = DEFAULT_PHYSICS,
  ) {
    super();
    this.track = track;
    this.body = { ...track.start, speed: 0 };
  }

  setInput(throttle: number, steer: number): void {
    this.input = { throttle, steer };
  }

  step(dt: number): void {
    const from = this.body;
    this.body = stepBody(from, this.input, dt, this.track, this.physics);
    this.battery = Math.max(
      0,
      this.battery - dt * (BATTERY_IDLE_DRAIN + BATTERY_DRIVE_DRAIN * Math.abs(this.input.throttle)),
    );
    const crossing = finishLineCrossing(this.track, from, this.body);
    if (crossing === 0) return;
    this.crossings += crossing;
    if (this.crossings > this.bestCrossings) {
      this.bestCrossings = this.crossings;
      this.emit('lap', { laps: this.crossings, at: Date.now() });
    }
  }

  /** Steps in real time at `hz` until `stop()`. */
  start(hz: number = SIM_HZ): void {
    if (this.timer) return;
    this.lastTick = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      // A stalled event loop must not teleport the car: cap the step.
      this.step(Math.min(0.1, (now - this.lastTick) / 1000));
      this.lastTick = now;
    }, 1000 / hz);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  get state(): SimCarState {
    return {
      ...this.body,
      ...this.input,
      onTrack: isOnTrack(this.track, this.body.x, this.body.y),
      lapCrossings: this.crossings,
      battery: this.battery,
    };
  }
}
