/**
 * Keeps one camera stream running towards the latest `video {host, port, codec}` target from the
 * server (the car's Janus mountpoint): one GStreamer process at a time.
 *
 * - `start(target)` is idempotent for the same target; a new target ends the running process
 *   first (a real camera can be opened by one process only) and then starts one for the new port.
 * - `stop()` ends it: SIGTERM at once (synchronously, so it also works from an `exit` handler),
 *   SIGKILL after a grace period; the promise resolves when the process is gone.
 * - A process that exits on its own while a target is set is restarted after 1 s, doubling to
 *   30 s, back to 1 s after a healthy run; each exit is one log line (with GStreamer's last
 *   error line), never a stack trace.
 *
 * The `sim` source renders the simulated car's view (`SimCamera`), so the picture moves when the
 * car moves; `libcamera` and `v4l2` film the real camera with the hardware encoder when GStreamer
 * has it (`v4l2h264enc`), else x264; `test` is GStreamer's test pattern.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { Backoff, type VideoCodec } from '@telerace/protocol';
import type { VideoSettings } from '../settings.js';
import type { SimCar } from '../sim/sim-car.js';
import type { Track } from '../sim/track.js';
import { FrameMeter } from './frame-meter.js';
import {
  buildVideoPipeline,
  chooseEncoder,
  GST_LAUNCH,
  type VideoEncoder,
  type VideoSource,
} from './pipeline.js';
import { type CameraPose, SimCamera, type SpawnFn } from './sim-camera.js';
import { spawnTiedToAgent } from './tied-spawn.js';

/** Where the server wants the camera's RTP (H.264, payload type 96). */
export interface VideoTarget {
  host: string;
  port: number;
  codec: VideoCodec;
}

/** What the agent needs of a camera stream. */
export interface VideoOutput {
  start(target: VideoTarget): void;
  stop(): Promise<void>;
  /** Frames per second sent lately, when known and streaming. */
  fps(): number | undefined;
  /** Kilobits per second of video sent lately, when known and streaming. */
  kbps?(): number | undefined;
}

export interface VideoStreamerOptions {
  source: VideoSource;
  log: (line: string) => void;
  /** The simulated car's pose and speed (source `sim`), e.g. `() => simCar.state`. */
  getState?: () => CameraPose;
  track?: Track;
  width?: number;
  height?: number;
  framerate?: number;
  /** kbit/s. */
  bitrate?: number;
  /** The V4L2 device (source `v4l2`). */
  device?: string;
  /** Whether GStreamer has an element (default: `gst-inspect-1.0 --exists`); picks the encoder. */
  hasElement?: (name: string) => boolean | Promise<boolean>;
  spawn?: SpawnFn;
  /** First restart delay after an unexpected exit (default 1000 ms), doubling up to `restartMaxMs`. */
  restartInitialMs?: number;
  restartMaxMs?: number;
  /** A process that ran this long before exiting was healthy: the delay starts again from the first. */
  healthyMs?: number;
  /** Time between SIGTERM and SIGKILL when stopping (default 2000 ms). */
  killGraceMs?: number;
  /** Monotonic milliseconds (default `performance.now`). */
  now?: () => number;
}

interface Run {
  child: ChildProcess;
  camera: SimCamera | undefined;
  /** Counts the frames GStreamer sends (its verbose stdout). */
  meter: FrameMeter;
  startedAt: number;
  ended: boolean;
  /** We asked it to end: its exit is not a failure. */
  stopping: boolean;
  /** GStreamer's last error line (or spawn error), for the log. */
  lastError: string;
  exited: Promise<void>;
  markExited: () => void;
}

const sameTarget = (a: VideoTarget, b: VideoTarget) =>
  a.host === b.host && a.port === b.port && a.codec === b.codec;

/** `gst-inspect-1.0 --exists NAME`: whether this GStreamer has the element. */
export function gstHasElement(name: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('gst-inspect-1.0', ['--exists', name], { timeout: 10_000 }, (error) => resolve(!error));
  });
}

/**
 * The interesting part of GStreamer's stderr: the element's error (`ERROR: from element …: Cannot
 * identify device …`) rather than the generic ones that follow it, else its last ERROR line, else
 * its last line.
 */
export function lastErrorLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const line =
    lines.findLast((l) => l.startsWith('ERROR: from element')) ??
    lines.findLast((l) => /^(ERROR|WARNING: erroneous)/.test(l)) ??
    lines.at(-1) ??
    '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

export class VideoStreamer implements VideoOutput {
  private current: VideoTarget | undefined;
  private run: Run | undefined;
  /** Processes asked to end that have not exited yet. */
  private readonly dying = new Set<Run>();
  /** Bumped by every new target and by stop(): a launch of an older epoch gives up. */
  private epoch = 0;
  private retry: NodeJS.Timeout | undefined;
  private readonly backoff: Backoff;
  private encoderChoice: Promise<VideoEncoder> | undefined;

  constructor(private readonly options: VideoStreamerOptions) {
    if (options.source === 'sim' && !options.getState) {
      throw new Error('video: the sim camera needs the simulated car (getState)');
    }
    this.backoff = new Backoff({
      initialMs: options.restartInitialMs ?? 1_000,
      maxMs: options.restartMaxMs ?? 30_000,
    });
  }

  /** The target being streamed to (also while waiting to restart). */
  get target(): VideoTarget | undefined {
    return this.current ? { ...this.current } : undefined;
  }

  /** The running GStreamer process's id. */
  get pid(): number | undefined {
    return this.run?.child.pid;
  }

  get streaming(): boolean {
    return this.run !== undefined;
  }

  start(target: VideoTarget): void {
    if (this.current && sameTarget(this.current, target)) return;
    this.current = { host: target.host, port: target.port, codec: target.codec };
    const epoch = ++this.epoch;
    clearTimeout(this.retry);
    this.backoff.reset();
    this.options.log(
      `video: ${this.options.source} camera → ${target.host}:${target.port} (${target.codec})`,
    );
    const previous = this.end();
    void previous.then(() => this.launch(epoch));
  }

  /** Ends the stream; resolves when every GStreamer process of this streamer has exited. */
  stop(): Promise<void> {
    if (this.current) this.options.log('video: stopped');
    this.current = undefined;
    this.epoch++;
    clearTimeout(this.retry);
    this.retry = undefined;
    return this.end();
  }

  /** Frames per second GStreamer sent lately (every camera); undefined while not streaming. */
  fps(): number | undefined {
    return this.run?.meter.fps();
  }

  kbps(): number | undefined {
    return this.run?.meter.kbps();
  }

  private async launch(epoch: number): Promise<void> {
    const source = this.options.source;
    const encoder = source === 'libcamera' || source === 'v4l2' ? await this.encoder() : undefined;
    const target = this.current;
    if (epoch !== this.epoch || !target || this.run) return;
    let child: ChildProcess | undefined;
    let camera: SimCamera | undefined;
    const spawn = this.options.spawn ?? spawnTiedToAgent;
    const size = {
      ...(this.options.width === undefined ? {} : { width: this.options.width }),
      ...(this.options.height === undefined ? {} : { height: this.options.height }),
      ...(this.options.framerate === undefined ? {} : { framerate: this.options.framerate }),
    };
    try {
      if (source === 'sim') {
        camera = new SimCamera({
          getState: this.options.getState as () => CameraPose,
          ...(this.options.track ? { track: this.options.track } : {}),
          host: target.host,
          port: target.port,
          ...size,
          ...(this.options.bitrate === undefined ? {} : { bitrate: this.options.bitrate }),
          // Its stdout too: the frames sent are counted there.
          spawn: (command, args, options) => {
            child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
            return child;
          },
        });
        // Reported through the run's close event.
        camera.on('error', () => {});
        camera.start();
      } else {
        const { command, args } = buildVideoPipeline({
          source,
          host: target.host,
          port: target.port,
          ...size,
          ...(this.options.bitrate === undefined ? {} : { bitrate: this.options.bitrate }),
          ...(this.options.device === undefined ? {} : { device: this.options.device }),
          ...(encoder ? { encoder } : {}),
        });
        child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      }
    } catch (error) {
      // An invalid host or size: retrying cannot help, the next target may.
      this.options.log(`video: cannot start the camera: ${(error as Error).message}`);
      return;
    }
    if (!child) return;
    this.watch(child, camera);
  }

  private watch(child: ChildProcess, camera: SimCamera | undefined): void {
    let markExited = () => {};
    const exited = new Promise<void>((resolve) => {
      markExited = resolve;
    });
    const run: Run = {
      child,
      camera,
      meter: new FrameMeter(() => this.now()),
      startedAt: this.now(),
      ended: false,
      stopping: false,
      lastError: '',
      exited,
      markExited,
    };
    this.run = run;
    // Always read: a full pipe would stall GStreamer, and with it the picture.
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => run.meter.feed(chunk));
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2_000);
    });
    child.on('error', (error) => {
      run.lastError = error.message;
    });
    // 'close' also follows a failed spawn (ENOENT), where 'exit' never comes.
    child.on('close', (code, signal) => {
      run.lastError ||= lastErrorLine(stderr);
      this.ended(run, code, signal);
    });
  }

  private ended(run: Run, code: number | null, signal: NodeJS.Signals | null): void {
    if (run.ended) return;
    run.ended = true;
    run.camera?.stop();
    run.markExited();
    this.dying.delete(run);
    if (this.run !== run) return;
    this.run = undefined;
    if (run.stopping || !this.current) return;
    const ranMs = this.now() - run.startedAt;
    if (ranMs >= (this.options.healthyMs ?? 10_000)) this.backoff.reset();
    const delay = this.backoff.next();
    const how = signal ? `signal ${signal}` : code === null || code < 0 ? 'failed to start' : `code ${code}`;
    const why = run.lastError ? `: ${run.lastError}` : '';
    this.options.log(
      `video: ${GST_LAUNCH} ended (${how}) after ${(ranMs / 1000).toFixed(1)} s${why}; restarting in ${delay} ms`,
    );
    const epoch = this.epoch;
    this.retry = setTimeout(() => void this.launch(epoch), delay);
  }

  /** Asks the current process to end (SIGTERM now, SIGKILL after the grace period). */
  private end(): Promise<void> {
    const run = this.run;
    this.run = undefined;
    if (run && !run.ended) {
      run.stopping = true;
      this.dying.add(run);
      if (run.camera) run.camera.stop();
      else run.child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!run.ended) run.child.kill('SIGKILL');
      }, this.options.killGraceMs ?? 2_000);
      void run.exited.then(() => clearTimeout(timer));
    }
    return Promise.all([...this.dying].map((r) => r.exited)).then(() => undefined);
  }

  private now(): number {
    return (this.options.now ?? performance.now.bind(performance))();
  }

  private encoder(): Promise<VideoEncoder> {
    this.encoderChoice ??= (async () => {
      let found = false;
      try {
        found = await (this.options.hasElement ?? gstHasElement)('v4l2h264enc');
      } catch {
        found = false;
      }
      const encoder = chooseEncoder(() => found);
      this.options.log(`video: encoder ${encoder === 'v4l2h264' ? 'v4l2h264enc (hardware)' : 'x264enc'}`);
      return encoder;
    })();
    return this.encoderChoice;
  }
}

/**
 * The agent's camera from its settings: undefined for `camera: none`; the `sim` camera films
 * `car` (the simulated drive's car).
 */
export function createVideoStreamer(
  video: VideoSettings,
  deps: { log: (line: string) => void; car?: SimCar | undefined },
): VideoStreamer | undefined {
  if (video.camera === 'none') return undefined;
  const { car } = deps;
  if (video.camera === 'sim' && !car) throw new Error('video: --camera sim needs the simulated drive');
  return new VideoStreamer({
    source: video.camera,
    log: deps.log,
    ...(car ? { getState: () => car.state, track: car.track } : {}),
    width: video.width,
    height: video.height,
    framerate: video.framerate,
    bitrate: video.bitrate,
    device: video.device,
  });
}
