/**
 * The simulated car: a body on the track stepped at 60 Hz, with a battery that drains slowly.
 * Its state is exposed for the video renderer; `lap` fires each time the car crosses the finish
 * line forward to a new lap (backing over the line and crossing it again does not count twice),
 * and the agent reports it to the server as a `pass`.
 */
import { EventEmitter } from 'node:events';
import { assistSteer } from './assist.js';
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

export interface SimCarOptions {
  /**
   * The steering assist (assist.ts): steers toward the centre line, the driver's steer added on
   * top. Off here (the bare physics); the agent turns it on for simulated cars unless `--assist off`.
   */
  assist?: boolean;
}

export class SimCar extends EventEmitter<{ lap: [LapEvent] }> {
  readonly track: Track;
  private body: BodyState;
  private input = { throttle: 0, steer: 0 };
  private crossings = 0;
  private bestCrossings = 0;
  private battery = 100;
  private timer: NodeJS.Timeout | undefined;
  private lastTick = 0;
  readonly assist: boolean;

  constructor(
    track: Track = createTrack(),
    private readonly physics: CarPhysics = DEFAULT_PHYSICS,
    options: SimCarOptions = {},
  ) {
    super();
    this.track = track;
    this.body = { ...track.start, speed: 0 };
    this.assist = options.assist ?? false;
  }

  setInput(throttle: number, steer: number): void {
    this.input = { throttle, steer };
  }

  step(dt: number): void {
    const from = this.body;
    this.body = stepBody(
      from,
      { throttle: this.input.throttle, steer: this.steer() },
      dt,
      this.track,
      this.physics,
    );
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

  /**
   * The steer the wheels get: the driver's, plus the assist's while the car rolls forward
   * (backing up, the driver steers alone: the assist's aim is ahead).
   */
  private steer(): number {
    const steer = this.input.steer || 0;
    if (!this.assist || this.body.speed < 0 || (this.body.speed === 0 && this.input.throttle <= 0))
      return steer;
    return Math.max(-1, Math.min(1, steer + assistSteer(this.track, this.body)));
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
