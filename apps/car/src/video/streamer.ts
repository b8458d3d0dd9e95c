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
 *
 * The pipeline runs in `gst-runner.py` (encoder-control.ts) when GStreamer's Python bindings are
 * installed, so `setBitrate()` and `requestKeyframe()` reach the encoder while it plays; else in
 * `gst-launch-1.0`, without them (said once in the log).
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { Backoff, type CarVideoQuality, type VideoCodec } from '@telerace/protocol';
import type { VideoSettings } from '../settings.js';
import type { SimCar } from '../sim/sim-car.js';
import type { Track } from '../sim/track.js';
import { BitrateController } from './bitrate.js';
import {
  checkBitrate,
  controlOf,
  type EncoderControl,
  RUNNER_NAME,
  runnerMissing,
  throughRunner,
} from './encoder-control.js';
import { FrameMeter } from './frame-meter.js';
import {
  buildVideoPipeline,
  chooseEncoder,
  DEFAULT_FRAMERATE,
  DEFAULT_HEIGHT,
  DEFAULT_WIDTH,
  defaultBitrate,
  GST_LAUNCH,
  type VideoEncoder,
  type VideoSource,
} from './pipeline.js';
import { type CameraPose, SimCamera, type SpawnFn } from './sim-camera.js';
import { spawnTiedToAgent } from './tied-spawn.js';
import { type UplinkRepair, VideoUplink } from './uplink.js';

/** kbit/s: the configured bitrate, else the pipeline's default for the size and rate. */
const configuredBitrate = (options: VideoStreamerOptions): number =>
  options.bitrate ??
  defaultBitrate(
    options.width ?? DEFAULT_WIDTH,
    options.height ?? DEFAULT_HEIGHT,
    options.framerate ?? DEFAULT_FRAMERATE,
  );

/** kbit/s the bitrate never falls below on a narrow uplink: a picture still worth driving by. */
export const MIN_ADAPTED_BITRATE = 150;

/** Where the server wants the camera's RTP (H.264, payload type 96), and the SRTP key it takes. */
export interface VideoTarget {
  host: string;
  port: number;
  codec: VideoCodec;
  srtp: { suite: 'AES_CM_128_HMAC_SHA1_80'; key: string };
}

/** What the agent needs of a camera stream. */
export interface VideoOutput {
  start(target: VideoTarget): void;
  stop(): Promise<void>;
  /** Frames per second sent lately, when known and streaming. */
  fps(): number | undefined;
  /** Kilobits per second of video sent lately, when known and streaming. */
  kbps?(): number | undefined;
  /** The encoder's bitrate from now on (kbit/s); true when a running pipeline took it. */
  setBitrate?(kbps: number): boolean;
  /** An IDR as soon as possible; true when a running pipeline will send one. */
  requestKeyframe?(): boolean;
  /** The picture and bitrate sent now, and what the uplink lost, while streaming. */
  quality?(): CarVideoQuality | undefined;
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
  /** Loss repair on the uplink (default `auto`). */
  repair?: UplinkRepair;
  /** The V4L2 device (source `v4l2`). */
  device?: string;
  /** Whether GStreamer has an element (default: `gst-inspect-1.0 --exists`); picks the encoder. */
  hasElement?: (name: string) => boolean | Promise<boolean>;
  /**
   * Why the runner (run-time encoder control) cannot run here, or undefined when it can (default:
   * `gst-runner.py --check`); without it the pipeline runs in gst-launch-1.0.
   */
  runnerMissing?: () => string | undefined | Promise<string | undefined>;
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
  /** What runs the pipeline, for the log: `gst-runner` or `gst-launch-1.0`. */
  program: string;
  /** The runner's control pipe; undefined under gst-launch-1.0. */
  control: EncoderControl | undefined;
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
  a.host === b.host && a.port === b.port && a.codec === b.codec && a.srtp.key === b.srtp.key;

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
  private runnerChoice: Promise<boolean> | undefined;
  /** Encrypts GStreamer's RTP for the server (uplink.ts). */
  readonly uplink: VideoUplink;
  /** The bitrate the uplink's reports call for (bitrate.ts). */
  private readonly bitrates: BitrateController;
  /**
   * kbit/s the encoder aims at now, set with setBitrate() (when adapted to the uplink: bitrate.ts);
   * else the configured one. Every later pipeline of this streamer starts at it.
   */
  private bitrate: number | undefined;

  constructor(private readonly options: VideoStreamerOptions) {
    if (options.source === 'sim' && !options.getState) {
      throw new Error('video: the sim camera needs the simulated car (getState)');
    }
    this.backoff = new Backoff({
      initialMs: options.restartInitialMs ?? 1_000,
      maxMs: options.restartMaxMs ?? 30_000,
    });
    const maxBitrate = configuredBitrate(options);
    this.bitrates = new BitrateController({
      max: maxBitrate,
      min: Math.min(maxBitrate, MIN_ADAPTED_BITRATE),
    });
    this.uplink = new VideoUplink({
      log: options.log,
      ...(options.repair ? { repair: options.repair } : {}),
      // Repair came too late for the picture: a keyframe now rather than at the next second.
      onKeyframeRequest: () => this.requestKeyframe(),
      // What arrived sets the bitrate: down at once on a narrow uplink, back up as it clears.
      onReport: (report, now) => {
        if (!this.controllable) return;
        const next = this.bitrates.next(report, now);
        if (next !== (this.bitrate ?? maxBitrate)) this.setBitrate(next);
      },
    });
    // Checked now (Python takes a moment to load GStreamer), not when the first target comes.
    void this.runner();
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
    try {
      this.uplink.setTarget({ host: target.host, port: target.port, key: target.srtp.key });
    } catch (error) {
      // An invalid host or key: retrying cannot help, the next target may.
      this.options.log(`video: cannot start the camera: ${(error as Error).message}`);
      return;
    }
    this.current = { host: target.host, port: target.port, codec: target.codec, srtp: { ...target.srtp } };
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
    this.uplink.setTarget(null);
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

  /**
   * The encoder's target bitrate in kbit/s (an integer within pipeline.ts's limits, else a
   * RangeError), applied while the pipeline plays and to every pipeline started after it (a
   * restart, a new target) until set again. True when a running pipeline took it now.
   */
  setBitrate(kbps: number): boolean {
    this.bitrate = checkBitrate(kbps);
    return this.run?.control?.setBitrate(kbps) ?? false;
  }

  /**
   * An IDR from the encoder as soon as possible (a viewer's picture is damaged), at most one per
   * 150 ms (encoder-control.ts). True when the running pipeline will send one.
   */
  requestKeyframe(): boolean {
    const request = this.run?.control?.requestKeyframe();
    return request === 'sent' || request === 'deferred';
  }

  /** Whether the running pipeline takes setBitrate() and requestKeyframe() (the runner runs it). */
  get controllable(): boolean {
    return this.run?.control?.open ?? false;
  }

  quality(): CarVideoQuality | undefined {
    if (!this.run) return undefined;
    const maxBitrate = configuredBitrate(this.options);
    const report = this.uplink.report;
    const packets = report ? report.received + report.lost : 0;
    const percent = (count: number) => Math.round((1000 * count) / packets) / 10;
    return {
      width: this.options.width ?? DEFAULT_WIDTH,
      height: this.options.height ?? DEFAULT_HEIGHT,
      framerate: this.options.framerate ?? DEFAULT_FRAMERATE,
      bitrate: Math.round(this.bitrate ?? maxBitrate),
      maxBitrate,
      ...(packets > 0 && report
        ? { lossPercent: percent(report.lost), unrepairedPercent: percent(report.unrepaired) }
        : {}),
    };
  }

  private async launch(epoch: number): Promise<void> {
    const source = this.options.source;
    const encoder = source === 'libcamera' || source === 'v4l2' ? await this.encoder() : undefined;
    const controlled = await this.runner();
    // GStreamer sends to the uplink on loopback, which encrypts for the server.
    const target = this.current && { host: '127.0.0.1', port: await this.uplink.localPort() };
    if (epoch !== this.epoch || !target || this.run) return;
    let child: ChildProcess | undefined;
    let camera: SimCamera | undefined;
    const spawnTied = this.options.spawn ?? spawnTiedToAgent;
    // The runner takes gst-launch-1.0's arguments, and its commands on a fourth pipe (fd 3).
    const spawn = controlled ? throughRunner(spawnTied) : spawnTied;
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
    this.watch(child, camera, controlled);
  }

  private watch(child: ChildProcess, camera: SimCamera | undefined, controlled: boolean): void {
    let markExited = () => {};
    const exited = new Promise<void>((resolve) => {
      markExited = resolve;
    });
    const control = controlled ? controlOf(child, { now: () => this.now() }) : undefined;
    if (control && this.bitrate !== undefined) control.setBitrate(this.bitrate);
    const run: Run = {
      child,
      camera,
      meter: new FrameMeter(() => this.now()),
      program: controlled ? RUNNER_NAME : GST_LAUNCH,
      control,
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
    run.control?.close();
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
      `video: ${run.program} ended (${how}) after ${(ranMs / 1000).toFixed(1)} s${why}; restarting in ${delay} ms`,
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
      // The runner also ends when its control pipe closes.
      run.control?.close();
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

  /** Whether pipelines run in the runner; checked once, and said once in the log. */
  private runner(): Promise<boolean> {
    this.runnerChoice ??= (async () => {
      let why: string | undefined;
      try {
        why = await (this.options.runnerMissing ?? runnerMissing)();
      } catch (error) {
        why = (error as Error).message;
      }
      this.options.log(
        why === undefined
          ? 'video: run-time encoder control (bitrate, keyframes) through gst-runner'
          : `video: no run-time encoder control, ${GST_LAUNCH} runs the camera: ${why}`,
      );
      return why === undefined;
    })();
    return this.runnerChoice;
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
    repair: video.repair,
    device: video.device,
  });
}
