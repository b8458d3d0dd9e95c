/**
 * Checks 6 and 7: the camera gives frames at the configured size and rate, and the encoder keeps
 * up. Each runs GStreamer for a few seconds with the agent's own pipeline parts (pipeline.ts) into
 * a `fakesink`, counting frames on the `identity name=sent` that frame-meter.ts reads: the source
 * alone for the camera, the source and the encoder the agent would pick for the encoder. The
 * simulated camera has no GStreamer source: its renderer is timed instead, and its encoder runs
 * the agent's whole sim pipeline (SimCamera) towards a local UDP port that discards.
 */
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import type { VideoSettings } from '../settings.js';
import { createTrack } from '../sim/track.js';
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

interface Counted {
  /** Frames per second from the first frame on; undefined when none came. */
  fps?: number;
  /** Why GStreamer ended early or never started. */
  error?: string;
}

/** Runs a GStreamer child that prints `(sent:sink)` lines, counts its frames, and ends it. */
function countFrames(child: ChildProcess, onEnd?: () => void): Promise<Counted> {
  const meter = new FrameMeter(() => performance.now());
  let first: { at: number; frames: number } | undefined;
  let stderr = '';
  let spawnError = '';
  return new Promise((resolve) => {
    let settled = false;
    const finish = (counted: Counted) => {
      if (settled) return;
      settled = true;
      clearTimeout(firstTimer);
      clearTimeout(countTimer);
      onEnd?.();
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 1_000).unref();
      resolve(counted);
    };
    const measured = () => {
      if (!first) return {};
      const seconds = (performance.now() - first.at) / 1000;
      return { fps: seconds > 0 ? (meter.frames - first.frames) / seconds : 0 };
    };
    let countTimer: NodeJS.Timeout | undefined;
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

function runGst(elements: string[]): Promise<Counted> {
  const child = spawnTiedToAgent(GST_LAUNCH, ['-v', ...elements, '!', 'fakesink', 'sync=false'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return countFrames(child);
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

export async function checkEncoder(video: VideoSettings): Promise<CheckResult> {
  if (video.camera === 'none') return skip('--camera none');
  if (video.camera === 'v4l2' && !existsSync(video.device)) return skip(`no camera (${video.device} absent)`);
  const encoder = await encoderFor(video.camera);
  const name = encoder === 'x264' ? 'x264enc' : 'v4l2h264enc (hardware)';
  const counted =
    video.camera === 'sim'
      ? await encodeSimCamera(video)
      : await runGst([
          ...sourceElements({ source: video.camera, ...video }),
          '!',
          ...encodeElements(encoder, video),
        ]);
  const result = rateResult(
    `${name}`,
    counted,
    video,
    encoder === 'x264'
      ? 'x264 is software: a smaller size or rate in "video" (a Pi 5 has no hardware H.264: 640×480 or less), or a Pi with v4l2h264enc'
      : 'a smaller size or rate in "video"; check that nothing else uses the encoder',
  );
  return result.status === 'pass' ? pass(`${name} ${result.detail}, ${video.bitrate} kbit/s`) : result;
}

/** The agent's sim pipeline (render, encode, RTP) to a local UDP port that discards. */
async function encodeSimCamera(video: VideoSettings): Promise<Counted> {
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
      child = spawnTiedToAgent(command, args, { ...spawnOptions, stdio: ['pipe', 'pipe', 'pipe'] });
      return child;
    },
  });
  camera.on('error', () => {});
  camera.start();
  if (!child) return { error: 'the simulated camera did not start' };
  return countFrames(child, () => {
    camera.stop();
    sink.close();
  });
}
