/**
 * Turns the server's commands into backend calls: shapes them with the car's configuration,
 * smooths them with the slew limiter (a 50 Hz loop runs only while the output is still ramping),
 * and goes to neutral — immediately, never slewed — at start-up, on `stop`, on the deadman and
 * when the socket closes.
 */
import { type CarConfig, CONTROL_LIMITS, DEFAULT_CAR_CONFIG } from '@telerace/protocol';
import type { DriveBackend } from './backend.js';
import { Deadman } from './deadman.js';
import {
  DEFAULT_SLEW_RATES,
  DEFAULT_TRIM_MAX,
  type DriveCommand,
  NEUTRAL,
  SlewLimiter,
  type SlewRates,
  shapeCommand,
} from './output.js';

export const CONTROL_LOOP_MS = 20;

export interface DriverOptions {
  backend: DriveBackend;
  slew?: SlewRates;
  trimMax?: number;
  deadmanMs?: number;
  log?: (line: string) => void;
  /** The deadman tripped (the car's link figures count them). */
  onDeadman?: () => void;
  now?: () => number;
}

export class Driver {
  private readonly backend: DriveBackend;
  private readonly slew: SlewLimiter;
  private readonly deadman: Deadman;
  private readonly trimMax: number;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private config: CarConfig = DEFAULT_CAR_CONFIG;
  private lastCommand: DriveCommand = NEUTRAL;
  private target: DriveCommand = NEUTRAL;
  private loop: NodeJS.Timeout | undefined;
  private isNeutral = false;

  constructor(options: DriverOptions) {
    this.backend = options.backend;
    this.slew = new SlewLimiter(options.slew ?? DEFAULT_SLEW_RATES);
    this.trimMax = options.trimMax ?? DEFAULT_TRIM_MAX;
    this.log = options.log ?? (() => {});
    this.now = options.now ?? (() => performance.now());
    this.deadman = new Deadman(() => {
      if (!this.isNeutral) options.onDeadman?.();
      this.neutral(
        `deadman: nothing from the server for ${options.deadmanMs ?? CONTROL_LIMITS.carDeadmanMs} ms`,
      );
    }, options.deadmanMs);
  }

  /** Neutral at start-up, before anything else can move the car. */
  start(): void {
    this.neutral('start-up');
  }

  /** A drive or stop the car applied (the agent's to judge): the only thing that keeps the car alive. */
  heard(): void {
    this.deadman.heard();
  }

  drive(throttle: number, steer: number): void {
    this.lastCommand = { throttle, steer };
    this.target = shapeCommand(this.lastCommand, this.config, this.trimMax);
    this.isNeutral = false;
    this.step();
  }

  /** New limits apply at once, to the command being driven as well as the next ones. */
  setConfig(config: CarConfig): void {
    this.config = config;
    if (!this.isNeutral) {
      this.target = shapeCommand(this.lastCommand, this.config, this.trimMax);
      this.step();
    }
  }

  /** Immediate neutral (not slewed). Logs only when the car was driving, to keep logs readable. */
  neutral(reason: string): void {
    clearInterval(this.loop);
    this.loop = undefined;
    this.lastCommand = NEUTRAL;
    this.target = NEUTRAL;
    this.slew.reset();
    this.backend.neutral();
    if (!this.isNeutral) this.log(`neutral (${reason})`);
    this.isNeutral = true;
  }

  /** The socket closed: neutral, and the deadman has nothing left to watch. */
  disconnected(): void {
    this.deadman.disarm();
    this.neutral('link closed');
  }

  close(): void {
    this.deadman.disarm();
    this.neutral('agent stopping');
  }

  private step(): void {
    const out = this.slew.update(this.target, this.now());
    this.backend.apply(out.throttle, out.steer);
    if (this.slew.isSettled(this.target)) {
      clearInterval(this.loop);
      this.loop = undefined;
    } else if (this.loop === undefined) {
      this.loop = setInterval(() => this.step(), CONTROL_LOOP_MS);
    }
  }
}
