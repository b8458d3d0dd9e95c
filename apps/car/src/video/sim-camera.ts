/**
 * The simulated car's camera: renders the car's view at a fixed frame rate and writes the raw RGBA
 * frames into GStreamer's stdin (the `sim` pipeline of `pipeline.ts`), each stamped with its
 * capture time for the latency benchmark.
 *
 * Memory stays bounded: frames are copied into a small pool of buffers, and when GStreamer falls
 * behind (every buffer still being written) the frame is dropped instead of queued, so the video
 * never lags behind the car.
 *
 * Frames are due at fixed times from the start (frame n at n / framerate seconds), each timer set
 * for the next one: a `setInterval` of 1000/60 ms fires every 16 ms in Node (62.5 fps), while
 * GStreamer stamps the frames 1/60 s apart, so the picture ran ahead of its own timestamps.
 */
import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Track } from '../sim/track.js';
import { buildVideoPipeline } from './pipeline.js';
import { createRenderer, type Renderer } from './renderer.js';

export interface CameraPose {
  x: number;
  y: number;
  heading: number;
  speed: number;
}

export type SpawnFn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

export interface SimCameraOptions {
  /** The car's current state (e.g. `() => simCar.state`). */
  getState: () => CameraPose;
  track?: Track;
  host: string;
  port: number;
  width?: number;
  height?: number;
  framerate?: number;
  /** kbit/s; default: from the size and the frame rate (`defaultBitrate`). */
  bitrate?: number;
  /** Draw the capture-time strip (default true). */
  timestamp?: boolean;
  /** Frames in flight to GStreamer at most (default 3). */
  poolSize?: number;
  spawn?: SpawnFn;
  /** The capture time stamped on each frame (default `Date.now`). */
  now?: () => number;
  /** Monotonic milliseconds for the frame schedule (default `performance.now`). */
  clock?: () => number;
}

export interface SimCameraStats {
  frames: number;
  dropped: number;
}

/** A frame this late (ms) ends the schedule's catching up: it starts again from now. */
const STALL_MS = 100;

export class SimCamera extends EventEmitter<{ error: [Error]; exit: [number | null] }> {
  readonly renderer: Renderer;
  readonly stats: SimCameraStats = { frames: 0, dropped: 0 };
  private readonly free: Buffer[] = [];
  private child: ChildProcess | undefined;
  private timer: NodeJS.Timeout | undefined;
  private frameNumber = 0;
  /** When frame 0 of the schedule was due, and how many frames of it have been due since. */
  private schedule = { startedAt: 0, due: 0 };
  /** Bumped per GStreamer process, so buffers stuck in a dead process's pipe are not reused. */
  private generation = 0;

  constructor(private readonly options: SimCameraOptions) {
    super();
    this.renderer = createRenderer({
      width: options.width ?? 640,
      height: options.height ?? 480,
      ...(options.track ? { track: options.track } : {}),
    });
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Spawns GStreamer and starts sending frames. */
  start(): void {
    if (this.child) return;
    const generation = ++this.generation;
    this.free.length = 0;
    for (let i = 0; i < (this.options.poolSize ?? 3); i++)
      this.free.push(Buffer.alloc(this.renderer.frame.length));
    const { command, args } = buildVideoPipeline({
      source: 'sim',
      host: this.options.host,
      port: this.options.port,
      width: this.renderer.width,
      height: this.renderer.height,
      framerate: this.options.framerate ?? 30,
      ...(this.options.bitrate === undefined ? {} : { bitrate: this.options.bitrate }),
    });
    const child = (this.options.spawn ?? nodeSpawn)(command, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    this.child = child;
    child.on('error', (err) => this.emit('error', err));
    // EPIPE when GStreamer dies mid-write: reported through 'exit'.
    child.stdin?.on('error', () => {});
    child.stderr?.resume();
    child.on('exit', (code) => {
      if (this.generation === generation) this.halt();
      this.emit('exit', code);
    });
    this.schedule = { startedAt: this.clock(), due: 0 };
    this.scheduleFrame(generation);
  }

  /**
   * Sets the timer for the next frame of the schedule. A frame or two late (a busy machine), the
   * next ones come sooner to keep the rate; over STALL_MS late, the schedule starts again from now.
   */
  private scheduleFrame(generation: number): void {
    const period = 1000 / (this.options.framerate ?? 30);
    const now = this.clock();
    this.schedule.due += 1;
    let at = this.schedule.startedAt + this.schedule.due * period;
    if (now - at > STALL_MS) {
      // The event loop stalled: no burst of frames to catch up, the picture goes on from now.
      this.schedule = { startedAt: now, due: 0 };
      at = now;
    }
    this.timer = setTimeout(() => {
      if (generation !== this.generation || !this.child) return;
      this.captureFrame();
      this.scheduleFrame(generation);
    }, at - now);
  }

  private clock(): number {
    return (this.options.clock ?? performance.now.bind(performance))();
  }

  stop(): void {
    const child = this.child;
    this.halt();
    if (child) {
      child.stdin?.end();
      child.kill('SIGTERM');
    }
  }

  /** Renders the current state and hands it to GStreamer; false when the frame was dropped. */
  captureFrame(): boolean {
    const stdin = this.child?.stdin;
    if (!stdin?.writable) return false;
    const buffer = this.free.pop();
    if (!buffer) {
      this.stats.dropped++;
      return false;
    }
    const state = this.options.getState();
    const frame = this.renderer.render({
      x: state.x,
      y: state.y,
      heading: state.heading,
      speed: state.speed,
      frame: this.frameNumber++,
      ...(this.options.timestamp === false
        ? {}
        : { captureMs: Math.floor((this.options.now ?? Date.now)()) }),
    });
    buffer.set(frame);
    this.stats.frames++;
    const generation = this.generation;
    stdin.write(buffer, () => {
      if (generation === this.generation) this.free.push(buffer);
    });
    return true;
  }

  private halt(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.child = undefined;
  }
}
