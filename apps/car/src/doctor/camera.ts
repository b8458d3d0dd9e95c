/**
 * Checks 6 and 7: the camera gives frames at the configured size and rate, and the encoder keeps
 * up. Each runs GStreamer for a few seconds with the agent's own pipeline parts (pipeline.ts) into
 * a `fakesink`, counting frames on the `identity name=sent` that frame-meter.ts reads: the source
 * alone for the camera, the source and the encoder the agent would pick for the encoder. The
 * simulated camera has no GStreamer source: its renderer is timed instead, and its encoder runs
 * the agent's whole sim pipeline (SimCamera) towards a local UDP port that discards.
 *
 * The encoder runs in the agent's runner (gst-runner.py) and is steered as the agent steers it
 * (encoder-control.ts): 300 ms after the first frame (an IDR; the next periodic one is a second
 * away) the configured bitrate is set and a keyframe requested, which must come within 250 ms.
 * That is the check of run-time control on the car's own encoder (v4l2h264enc on a Pi).
 */
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import type { VideoSettings } from '../settings.js';
import { createTrack } from '../sim/track.js';
import {
  controlOf,
  type EncoderControl,
  RUNNER_PACKAGES,
  runnerMissing,
  throughRunner,
} from '../video/encoder-control.js';
import { FrameMeter, SENT_FRAMES_ELEMENT } from '../video/frame-meter.js';
import {
  chooseEncoder,
  defaultEncoder,
  encodeElements,
  GST_LAUNCH,
  sourceElements,
  type VideoEncoder,
  type VideoSource,
} from '../video/pipeline.js';
import { createRenderer } from '../video/renderer.js';
import { SimCamera } from '../video/sim-camera.js';
import { gstHasElement, lastErrorLine } from '../video/streamer.js';
import { spawnTiedToAgent } from '../video/tied-spawn.js';
import { type CheckResult, fail, fps, MIN_RATE_RATIO, pass, rateOk, skip } from './format.js';

/** Frames are counted this long once the first one came… */
const COUNT_MS = 3_000;
/** …which may take this long (a real camera takes a second or two to start). */
const FIRST_FRAME_MS = 6_000;
/** The keyframe is requested this long after the first frame (itself one; the next is 1 s away)… */
const KEYFRAME_REQUEST_MS = 300;
/** …and must come within this (the agent's tests see 10–40 ms with x264). */
const KEYFRAME_MS = 250;

interface Counted {
  /** Frames per second from the first frame on; undefined when none came. */
  fps?: number;
  /** Why GStreamer ended early or never started. */
  error?: string;
  /** Milliseconds from the keyframe request to the next keyframe; undefined when none came. */
  keyframeMs?: number;
  /** What the runner said when it refused a command. */
  refused?: string;
}

/** The runner's control, and the bitrate to set through it (the configured one). */
interface Steer {
  control: EncoderControl;
  bitrate: number;
}

/**
 * Runs a GStreamer child that prints `(sent:sink)` lines, counts its frames, and ends it; with
 * `steer`, sets the bitrate and times a requested keyframe on the way.
 */
function countFrames(child: ChildProcess, onEnd?: () => void, steer?: Steer): Promise<Counted> {
  const meter = new FrameMeter(() => performance.now());
  let first: { at: number; frames: number } | undefined;
  let requested: { at: number; keyframes: number } | undefined;
  let keyframeMs: number | undefined;
  let refused: string | undefined;
  let partial = '';
  let stderr = '';
  let spawnError = '';
  return new Promise((resolve) => {
    let settled = false;
    const finish = (counted: Counted) => {
      if (settled) return;
      settled = true;
      clearTimeout(firstTimer);
      clearTimeout(countTimer);
      clearTimeout(requestTimer);
      onEnd?.();
      steer?.control.close();
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 1_000).unref();
      resolve(counted);
    };
    const measured = (): Counted => {
      const said = {
        ...(keyframeMs === undefined ? {} : { keyframeMs }),
        ...(refused === undefined ? {} : { refused }),
      };
      if (!first) return said;
      const seconds = (performance.now() - first.at) / 1000;
      return { ...said, fps: seconds > 0 ? (meter.frames - first.frames) / seconds : 0 };
    };
    const request = () => {
      if (!steer) return;
      requested = { at: performance.now(), keyframes: meter.keyframes };
      steer.control.setBitrate(steer.bitrate);
      steer.control.requestKeyframe();
    };
    let countTimer: NodeJS.Timeout | undefined;
    let requestTimer: NodeJS.Timeout | undefined;
    const firstTimer = setTimeout(
      () => finish({ error: `no frame within ${FIRST_FRAME_MS / 1000} s` }),
      FIRST_FRAME_MS,
    );
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      meter.feed(chunk);
      if (!first && meter.frames > 0) {
        first = { at: performance.now(), frames: meter.frames };
        clearTimeout(firstTimer);
        countTimer = setTimeout(() => finish(measured()), COUNT_MS);
        requestTimer = setTimeout(request, KEYFRAME_REQUEST_MS);
      }
      if (requested && keyframeMs === undefined && meter.keyframes > requested.keyframes) {
        keyframeMs = performance.now() - requested.at;
      }
      if (!steer) return;
      const lines = (partial + chunk).split('\n');
      partial = (lines.pop() ?? '').slice(-4_096);
      for (const line of lines) {
        if (line.startsWith('control: refused ')) refused ??= line.slice('control: refused '.length);
      }
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
    child.on('error', (error) => {
      spawnError =
        (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${GST_LAUNCH} not found` : error.message;
    });
    child.on('close', (code) => {
      // setpriv (spawnTiedToAgent) says so when it cannot find GStreamer.
      if (stderr.includes(`failed to execute ${GST_LAUNCH}`)) spawnError = `${GST_LAUNCH} not found`;
      const why = spawnError || lastErrorLine(stderr) || `${GST_LAUNCH} exited with code ${code}`;
      finish({ ...measured(), error: why });
    });
  });
}

/** `bitrate`: run it in the runner and steer it (the encoder check). */
function runGst(elements: string[], bitrate?: number): Promise<Counted> {
  const spawn = bitrate === undefined ? spawnTiedToAgent : throughRunner(spawnTiedToAgent);
  const child = spawn(GST_LAUNCH, ['-v', ...elements, '!', 'fakesink', 'sync=false'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const control = bitrate === undefined ? undefined : controlOf(child);
  return countFrames(child, undefined, control && bitrate !== undefined ? { control, bitrate } : undefined);
}

const counter = ['!', 'identity', `name=${SENT_FRAMES_ELEMENT}`, 'silent=false'];
const sizeText = (video: VideoSettings) => `${video.width}×${video.height}`;

function gstFailure(what: string, error: string): CheckResult {
  if (error.endsWith('not found'))
    return fail(
      error,
      'install GStreamer: sudo apt-get install gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly (docs/car.md "Video")',
    );
  return fail(
    `${what}: ${error}`,
    'check the camera (plugged in, enabled, not used by another process) and that it offers this size and rate (v4l2-ctl --list-formats-ext); or change "video" in --config',
  );
}

function rateResult(what: string, counted: Counted, video: VideoSettings, fix: string): CheckResult {
  if (counted.fps === undefined) return gstFailure(what, counted.error ?? 'no frame');
  const text = `${fps(counted.fps)} at ${sizeText(video)} (configured ${video.framerate})`;
  if (rateOk(counted.fps, video.framerate)) return pass(text);
  return fail(`${text}: below ${Math.round(MIN_RATE_RATIO * 100)} % of the configured rate`, fix);
}

export async function checkCamera(video: VideoSettings): Promise<CheckResult> {
  if (video.camera === 'none') return skip('--camera none');
  if (video.camera === 'sim') return timeRenderer(video);
  if (video.camera === 'v4l2' && !existsSync(video.device))
    return fail(
      `camera device ${video.device} absent`,
      'plug the camera in (ls /dev/video* lists the devices), or set "video": {"device": …} in --config',
    );
  const source = sourceElements({ source: video.camera, ...video });
  const counted = await runGst([...source, ...counter]);
  return rateResult(
    `${video.camera} camera`,
    counted,
    video,
    'more light (cameras slow down in the dark), a smaller size or rate in "video", or a camera that offers this mode',
  );
}

/** The simulated camera: renders a second of frames and compares the time with the frame budget. */
function timeRenderer(video: VideoSettings): CheckResult {
  const renderer = createRenderer({ width: video.width, height: video.height, track: createTrack() });
  const started = performance.now();
  for (let frame = 0; frame < video.framerate; frame++)
    renderer.render({ x: 0, y: 0, heading: frame / 10, speed: 1, frame, captureMs: Date.now() });
  const msPerFrame = (performance.now() - started) / video.framerate;
  const possible = 1000 / Math.max(msPerFrame, 0.001);
  const text = `simulated camera renders ${sizeText(video)} in ${msPerFrame.toFixed(1)} ms a frame (budget ${(1000 / video.framerate).toFixed(0)} ms at ${video.framerate} fps)`;
  if (rateOk(possible, video.framerate)) return pass(text);
  return fail(
    `${text}: too slow`,
    'a smaller CAMERA_SIZE or CAMERA_FRAMERATE, or fewer simulated cars on this machine',
  );
}

async function encoderFor(source: VideoSource): Promise<VideoEncoder> {
  if (source !== 'libcamera' && source !== 'v4l2') return defaultEncoder(source);
  const found = await gstHasElement('v4l2h264enc').catch(() => false);
  return chooseEncoder(() => found);
}

export async function checkEncoder(
  video: VideoSettings,
  deps: { runnerMissing: () => Promise<string | undefined> } = { runnerMissing },
): Promise<CheckResult> {
  if (video.camera === 'none') return skip('--camera none');
  if (video.camera === 'v4l2' && !existsSync(video.device)) return skip(`no camera (${video.device} absent)`);
  const encoder = await encoderFor(video.camera);
  const name = encoder === 'x264' ? 'x264enc' : 'v4l2h264enc (hardware)';
  // Without the runner the agent streams through gst-launch-1.0: rate checked, then the failure said.
  const missing = await deps.runnerMissing();
  const steered = missing === undefined;
  const counted =
    video.camera === 'sim'
      ? await encodeSimCamera(video, steered)
      : await runGst(
          [...sourceElements({ source: video.camera, ...video }), '!', ...encodeElements(encoder, video)],
          steered ? video.bitrate : undefined,
        );
  const result = rateResult(
    `${name}`,
    counted,
    video,
    encoder === 'x264'
      ? 'x264 is software: a smaller size or rate in "video" (a Pi 5 has no hardware H.264: 640×480 or less), or a Pi with v4l2h264enc'
      : 'a smaller size or rate in "video"; check that nothing else uses the encoder',
  );
  if (result.status !== 'pass') return result;
  const text = `${name} ${result.detail}, ${video.bitrate} kbit/s`;
  if (missing !== undefined)
    return fail(
      `${text}, but no run-time control (keyframes on request, bitrate): ${missing.replace(/^ERROR: /, '').replace(/: sudo apt-get install .*$/, '')}`,
      `sudo apt-get install ${RUNNER_PACKAGES} (docs/car.md "Video")`,
    );
  if (counted.refused !== undefined)
    return fail(
      `${text}, but the runner refused a command: ${counted.refused}`,
      'an encoder gst-runner.py cannot steer: see docs/video.md "Run-time encoder control"',
    );
  if (counted.keyframeMs === undefined || counted.keyframeMs > KEYFRAME_MS) {
    const when =
      counted.keyframeMs === undefined ? 'never came' : `came after ${Math.round(counted.keyframeMs)} ms`;
    return fail(
      `${text}, but a requested keyframe ${when} (at most ${KEYFRAME_MS} ms): a viewer's damaged picture waits for the periodic one`,
      'the encoder ignores force-key-unit events: see docs/video.md "Run-time encoder control"',
    );
  }
  return pass(`${text}, keyframe on request in ${Math.round(counted.keyframeMs)} ms`);
}

/** The agent's sim pipeline (render, encode, RTP) to a local UDP port that discards; `steered`: in the runner. */
async function encodeSimCamera(video: VideoSettings, steered: boolean): Promise<Counted> {
  const sink = createSocket('udp4');
  sink.on('message', () => {});
  await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', resolve));
  let child: ChildProcess | undefined;
  const camera = new SimCamera({
    getState: () => ({ x: 0, y: 0, heading: performance.now() / 1000, speed: 1 }),
    host: '127.0.0.1',
    port: sink.address().port,
    width: video.width,
    height: video.height,
    framerate: video.framerate,
    bitrate: video.bitrate,
    spawn: (command, args, spawnOptions) => {
      const spawn = steered ? throughRunner(spawnTiedToAgent) : spawnTiedToAgent;
      child = spawn(command, args, { ...spawnOptions, stdio: ['pipe', 'pipe', 'pipe'] });
      return child;
    },
  });
  camera.on('error', () => {});
  camera.start();
  if (!child) return { error: 'the simulated camera did not start' };
  const control = steered ? controlOf(child) : undefined;
  return countFrames(
    child,
    () => {
      camera.stop();
      sink.close();
    },
    control ? { control, bitrate: video.bitrate } : undefined,
  );
}
