/**
 * Run-time control of the camera's encoder (issue 43; docs/video.md "Run-time encoder control"):
 * a keyframe on request, and the bitrate changed while the pipeline plays. `gst-launch-1.0` can do
 * neither, so the pipeline runs in `gst-runner.py` (beside this file, and beside `main.js` in the
 * bundle): the same argv (pipeline.ts), the same verbose lines on stdout (frame-meter.ts), plus
 * commands read on file descriptor 3 — stdin carries the simulated camera's frames.
 *
 * The runner needs GStreamer's Python bindings (python3-gi, gir1.2-gstreamer-1.0,
 * gir1.2-gst-plugins-base-1.0); where they are missing the streamer runs gst-launch-1.0 as before,
 * without run-time control, and says so once.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type GstCommand, MAX_BITRATE, MIN_BITRATE } from './pipeline.js';
import type { SpawnFn } from './sim-camera.js';

/**
 * Debian's (and Raspberry Pi OS's) Python, the one python3-gi is built for: a `python3` found
 * first on the PATH (pyenv, a virtual environment) may lack it.
 */
export const PYTHON = '/usr/bin/python3';
export const RUNNER_SCRIPT = fileURLToPath(new URL('./gst-runner.py', import.meta.url));
/** The runner's process name (`/proc/PID/comm`, ps, top). */
export const RUNNER_NAME = 'gst-runner';
/** The child's file descriptor the commands go to: spawn's `stdio[3]`. */
export const CONTROL_FD = 3;
/** The Debian packages the runner needs beside GStreamer (Raspberry Pi OS has the same). */
export const RUNNER_PACKAGES = 'python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0';
/** At most one keyframe request reaches the encoder per this many milliseconds. */
export const KEYFRAME_INTERVAL_MS = 150;

/** The runner's command line for a pipeline (`gst-launch-1.0 ARGS` from pipeline.ts). */
export function runnerCommand(pipeline: GstCommand): GstCommand {
  return { command: PYTHON, args: [RUNNER_SCRIPT, '--control-fd', String(CONTROL_FD), ...pipeline.args] };
}

/**
 * A `spawn` for gst-launch-1.0 command lines (SimCamera's, the streamer's, the doctor's) that
 * starts the runner instead, with its control pipe as file descriptor 3.
 */
export function throughRunner(spawn: SpawnFn): SpawnFn {
  return (command, args, options) => {
    const runner = runnerCommand({ command, args });
    const [stdin, stdout, stderr] = Array.isArray(options.stdio) ? options.stdio : [];
    return spawn(runner.command, runner.args, {
      ...options,
      stdio: [stdin ?? 'pipe', stdout ?? 'pipe', stderr ?? 'pipe', 'pipe'],
    });
  };
}

/** The control of a child started through throughRunner (undefined for any other). */
export function controlOf(child: ChildProcess, options?: EncoderControlOptions): EncoderControl | undefined {
  const pipe = child.stdio?.[CONTROL_FD];
  return pipe && 'write' in pipe ? new EncoderControl(pipe, options) : undefined;
}

/** Whether the runner can run here: resolves with undefined, or with why not (its own words). */
export function runnerMissing(): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(PYTHON, [RUNNER_SCRIPT, '--check'], { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined);
      const said = stderr.trim().split('\n').at(-1);
      resolve(
        (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${PYTHON} not found` : said || error.message,
      );
    });
  });
}

/** Throws unless `kbps` is a bitrate the pipeline accepts (an integer, MIN_BITRATE…MAX_BITRATE). */
export function checkBitrate(kbps: number): number {
  if (!Number.isInteger(kbps) || kbps < MIN_BITRATE || kbps > MAX_BITRATE) {
    throw new RangeError(
      `video: bitrate must be an integer ${MIN_BITRATE}…${MAX_BITRATE} kbit/s, got ${kbps}`,
    );
  }
  return kbps;
}

export type KeyframeRequest =
  /** Written to the runner now. */
  | 'sent'
  /** Within KEYFRAME_INTERVAL_MS of the last: sent when that interval ends (one for all of them). */
  | 'deferred'
  /** The pipeline is gone. */
  | 'closed';

export interface EncoderControlOptions {
  keyframeIntervalMs?: number;
  /** Monotonic milliseconds (default `performance.now`). */
  now?: () => number;
}

/** Commands to one runner's element `encoder` (pipeline.ts's ENCODER_ELEMENT), through its control pipe. */
export class EncoderControl {
  private lastKeyframeAt = Number.NEGATIVE_INFINITY;
  private deferred: NodeJS.Timeout | undefined;
  private closed = false;
  /** The bitrate last written: the same again is not written (a controller may repeat itself). */
  private bitrate: number | undefined;
  private readonly interval: number;
  private readonly now: () => number;

  constructor(
    private readonly pipe: Writable,
    options: EncoderControlOptions = {},
  ) {
    this.interval = options.keyframeIntervalMs ?? KEYFRAME_INTERVAL_MS;
    this.now = options.now ?? performance.now.bind(performance);
    // EPIPE when the runner has died: its exit is reported by the streamer.
    pipe.on('error', () => this.close());
    pipe.on('close', () => this.close());
  }

  get open(): boolean {
    return !this.closed;
  }

  /**
   * The encoder's target bitrate, kbit/s (validated: RangeError outside the pipeline's limits). The
   * bitrate it already has is not written again (on v4l2h264enc each write sets every control).
   */
  setBitrate(kbps: number): boolean {
    checkBitrate(kbps);
    if (this.closed) return false;
    if (kbps === this.bitrate) return true;
    this.bitrate = kbps;
    return this.send(`bitrate ${kbps}`);
  }

  /**
   * An IDR as soon as possible (a viewer lost part of the picture). Requests closer together than
   * the interval are merged into one sent when it ends, so none is lost and a burst of them (every
   * viewer of a lossy link asking at once) costs one keyframe, not one each.
   */
  requestKeyframe(): KeyframeRequest {
    if (this.closed) return 'closed';
    if (this.deferred) return 'deferred';
    const wait = this.lastKeyframeAt + this.interval - this.now();
    if (wait <= 0) {
      this.keyframeNow();
      return 'sent';
    }
    this.deferred = setTimeout(() => {
      this.deferred = undefined;
      this.keyframeNow();
    }, wait);
    return 'deferred';
  }

  /** Ends the control pipe: the runner then stops its pipeline and exits. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.deferred);
    this.deferred = undefined;
    this.pipe.end();
  }

  private keyframeNow(): void {
    this.lastKeyframeAt = this.now();
    this.send('keyframe');
  }

  private send(line: string): boolean {
    if (this.closed || !this.pipe.writable) return false;
    this.pipe.write(`${line}\n`);
    return true;
  }
}
