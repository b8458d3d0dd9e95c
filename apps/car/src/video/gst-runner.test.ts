/**
 * gst-runner.py with real GStreamer: the pipelines pipeline.ts builds, run by the runner, steered
 * through its control pipe (fd 3) while the frames it sends are read off its stdout as the agent
 * reads them (`identity name=sent`, frame-meter.ts). Times are taken when the agent would see them:
 * from the command's write to the line of the first frame that shows its effect.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  EncoderControl,
  PYTHON,
  RUNNER_NAME,
  RUNNER_SCRIPT,
  runnerCommand,
  runnerMissing,
} from './encoder-control.js';
import { buildVideoPipeline, type GstCommand } from './pipeline.js';
import { lastErrorLine } from './streamer.js';
import { alive, childrenOf, running as runs } from './testing.js';

interface Frame {
  /** performance.now() when its line was read. */
  at: number;
  bytes: number;
  /** Not a delta unit: an IDR. */
  key: boolean;
}

const FRAME = /\(sent:sink\) \((\d+) bytes, .*flags: [0-9a-f]+ ([^,]*),/;

interface Running {
  child: ChildProcess;
  control: Writable;
  frames: Frame[];
  /** The runner's answers to commands (`control: …`). */
  answers: Array<{ at: number; line: string }>;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function run(pipeline: GstCommand, stdin: 'pipe' | 'ignore' = 'ignore'): Running {
  const { command, args } = runnerCommand(pipeline);
  const child = spawn(command, args, { stdio: [stdin, 'pipe', 'pipe', 'pipe'] });
  children.push(child);
  const frames: Frame[] = [];
  const answers: Running['answers'] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const at = performance.now();
    const frame = FRAME.exec(line);
    if (frame) frames.push({ at, bytes: Number(frame[1]), key: !frame[2]?.includes('delta-unit') });
    else if (line.startsWith('control: ')) answers.push({ at, line });
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, control: child.stdio[3] as Writable, frames, answers, stderr: () => stderr, exited };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function firstFrames(running: Running, count = 5): Promise<void> {
  await vi.waitFor(() => expect(running.frames.length).toBeGreaterThanOrEqual(count), {
    timeout: 10_000,
    interval: 20,
  });
}

/**
 * Kilobits per second of the frames read in [from, to), over the time they stand for (1/30 s each:
 * what the encoder aims at) — on a busy machine the test may feed fewer than 30 a second.
 */
function kbps(frames: Frame[], from: number, to: number): number {
  const read = frames.filter((f) => f.at >= from && f.at < to);
  const bytes = read.reduce((sum, f) => sum + f.bytes, 0);
  return read.length === 0 ? 0 : (bytes * 8) / ((read.length / 30) * 1000);
}

/** Frames per second read in [from, to). */
const fps = (frames: Frame[], from: number, to: number) =>
  (frames.filter((f) => f.at >= from && f.at < to).length * 1000) / (to - from);

/** The simulated camera's pipeline, fed noise (hard to compress: the encoder spends all it may). */
function simWithNoise(options: { width: number; height: number; bitrate: number }): Running {
  const framerate = 30;
  const running = run(
    buildVideoPipeline({ source: 'sim', host: '127.0.0.1', port: 9, framerate, ...options }),
    'pipe',
  );
  const noise = Array.from({ length: 4 }, () =>
    randomFillSync(Buffer.alloc(options.width * options.height * 4)),
  );
  let n = 0;
  const stdin = running.child.stdin as Writable;
  stdin.on('error', () => {});
  timers.push(
    setInterval(() => {
      // Like SimCamera: a frame GStreamer is not ready for is dropped, not queued.
      if (stdin.writable && stdin.writableLength === 0) stdin.write(noise[n++ % noise.length]);
    }, 1000 / framerate),
  );
  return running;
}

/** The test pattern with keyframes 10 s apart unless asked for (the agent's is 1 s apart). */
function testPatternRareKeyframes(): Running {
  const pipeline = buildVideoPipeline({
    source: 'test',
    host: '127.0.0.1',
    port: 9,
    width: 320,
    height: 240,
  });
  const args = pipeline.args.map((arg) => (arg.startsWith('key-int-max=') ? 'key-int-max=300' : arg));
  expect(args).toContain('key-int-max=300');
  return run({ ...pipeline, args });
}

describe('gst-runner.py (real GStreamer)', () => {
  it('is available here (python3-gi, the GStreamer typelibs)', async () => {
    expect(await runnerMissing()).toBeUndefined();
  });

  it('bitrate: the encoder follows 2000 → 300 → 2000 kbit/s within a second, without a restart', async () => {
    const running = simWithNoise({ width: 320, height: 240, bitrate: 2000 });
    await firstFrames(running);
    await sleep(1_500);
    const control = new EncoderControl(running.control);
    const measure = async (target: number) => {
      const at = performance.now();
      control.setBitrate(target);
      await sleep(2_000);
      const perFrame = (target * 1000) / 8 / 30;
      // Where the new rate starts: the first frame from which the next ten average at most 1.5
      // times their share going down, at least half of it going up (one frame alone says little:
      // x264 spreads its budget unevenly, a few hundred bytes then a few thousand).
      const after = running.frames.filter((f) => f.at > at);
      const effect = after.find((_f, i) => {
        const next = after.slice(i, i + 10);
        const mean = next.reduce((sum, f) => sum + f.bytes, 0) / next.length;
        return next.length === 10 && (target < 1000 ? mean <= 1.5 * perFrame : mean >= perFrame / 2);
      });
      const answer = running.answers.find((a) => a.at > at);
      return {
        answeredMs: (answer?.at ?? Number.NaN) - at,
        answer: answer?.line,
        effectMs: (effect?.at ?? Number.POSITIVE_INFINITY) - at,
        kbps: kbps(running.frames, at + 1_000, at + 2_000),
        fps: fps(running.frames, at + 1_000, at + 2_000),
      };
    };
    const before = kbps(running.frames, performance.now() - 1_000, performance.now());
    const down = await measure(300);
    const up = await measure(2000);
    console.info(
      `[measure] runner bitrate: before ${before.toFixed(0)} kbit/s; → 300: answered in ${down.answeredMs.toFixed(1)} ms, new rate from the frame read ${down.effectMs.toFixed(0)} ms after, ${down.kbps.toFixed(0)} kbit/s over the next second (${down.fps.toFixed(0)} fps); → 2000: new rate from ${up.effectMs.toFixed(0)} ms, ${up.kbps.toFixed(0)} kbit/s (${up.fps.toFixed(0)} fps)`,
    );
    expect(before).toBeGreaterThan(1_400);
    expect(down.answer).toBe('control: bitrate 300');
    expect(down.effectMs).toBeLessThan(1_000);
    expect(down.kbps).toBeGreaterThan(300 * 0.7);
    expect(down.kbps).toBeLessThan(300 * 1.3);
    expect(up.answer).toBe('control: bitrate 2000');
    expect(up.effectMs).toBeLessThan(1_000);
    expect(up.kbps).toBeGreaterThan(2000 * 0.7);
    expect(up.kbps).toBeLessThan(2000 * 1.3);
    // The same process all along: bitrate changes restart nothing.
    expect(running.child.exitCode).toBeNull();
  }, 20_000);

  it('keyframe: an IDR out of the encoder within 100 ms of the request, though the next periodic one is 10 s away', async () => {
    const running = testPatternRareKeyframes();
    // The encoder's own frames are the clock: ten more (a third of a second) and still only the first IDR.
    await firstFrames(running, 15);
    expect(running.frames.filter((f) => f.key)).toHaveLength(1);
    const control = new EncoderControl(running.control);
    /** Request → IDR leaving the encoder, timed by the runner, and the frames out before it; request written → its line read here. */
    const encoderMs: number[] = [];
    const framesBefore: number[] = [];
    const readMs: number[] = [];
    for (let i = 0; i < 6; i++) {
      await sleep(200 + Math.random() * 100);
      const keys = running.frames.filter((f) => f.key).length;
      const answers = running.answers.length;
      const at = performance.now();
      expect(control.requestKeyframe()).toBe('sent');
      await vi.waitFor(
        () => {
          expect(running.frames.filter((f) => f.key).length).toBe(keys + 1);
          expect(running.answers.slice(answers).map((a) => a.line)).toHaveLength(2);
        },
        { timeout: 2_000, interval: 5 },
      );
      const [answer, out] = running.answers.slice(answers).map((a) => a.line);
      expect(answer).toBe('control: keyframe');
      const timed = /^control: keyframe out after (\d+\.\d) ms, (\d+) frames? before it$/.exec(out ?? '');
      encoderMs.push(Number(timed?.[1]));
      framesBefore.push(Number(timed?.[2]));
      readMs.push((running.frames.findLast((f) => f.key) as Frame).at - at);
    }
    console.info(
      `[measure] runner keyframe: request → IDR out of the encoder ${encoderMs.join(', ')} ms (frames before it: ${framesBefore.join(', ')}); request written → IDR line read ${readMs.map((d) => d.toFixed(0)).join(', ')} ms`,
    );
    // The encoder makes the next frame an IDR: at most the one it was encoding goes out before it
    // (load cannot change that); at 30 fps that is under 100 ms. The times carry the machine's
    // load too — beside two CPU hogs the encoder's reached 106 ms and a reader's 223 ms — so the
    // median is held to 100 ms and every one loosely.
    for (const frames of framesBefore) expect(frames).toBeLessThanOrEqual(1);
    expect([...encoderMs].sort((a, b) => a - b)[encoderMs.length / 2]).toBeLessThan(100);
    for (const ms of [...encoderMs, ...readMs]) expect(ms).toBeLessThan(500);
    // Only the requested ones: the first, then one per request.
    expect(running.frames.filter((f) => f.key)).toHaveLength(1 + encoderMs.length);
  });

  it('keyframe: a burst of requests costs two keyframes (the rest merged into one 150 ms later)', async () => {
    const running = testPatternRareKeyframes();
    await firstFrames(running);
    const control = new EncoderControl(running.control);
    const at = performance.now();
    const said = Array.from({ length: 10 }, () => control.requestKeyframe());
    expect(said).toEqual(['sent', ...Array(9).fill('deferred')]);
    await vi.waitFor(() => expect(running.frames.filter((f) => f.key && f.at > at)).toHaveLength(2), {
      timeout: 2_000,
      interval: 10,
    });
    // Ten frames later (a third of a second), no third one: the frames are the clock.
    await firstFrames(running, running.frames.length + 10);
    expect(running.frames.filter((f) => f.key && f.at > at)).toHaveLength(2);
    expect(running.answers.filter((a) => a.line === 'control: keyframe')).toHaveLength(2);
  });

  it('answers a command it cannot do, and plays on', async () => {
    const running = testPatternRareKeyframes();
    await firstFrames(running);
    running.control.write('bitrate fast\nfrobnicate\n\nbitrate 0\n');
    await vi.waitFor(() => expect(running.answers).toHaveLength(3));
    expect(running.answers.map((a) => a.line)).toEqual([
      "control: refused bitrate fast: invalid literal for int() with base 10: 'fast'",
      'control: refused frobnicate: unknown command',
      'control: refused bitrate 0: not a bitrate',
    ]);
    const frames = running.frames.length;
    await vi.waitFor(() => expect(running.frames.length).toBeGreaterThan(frames + 5));
  });

  it('exits (code 0) when its control pipe closes', async () => {
    const running = testPatternRareKeyframes();
    await firstFrames(running);
    const at = performance.now();
    running.control.end();
    expect(await running.exited).toEqual({ code: 0, signal: null });
    console.info(
      `[measure] runner: control pipe closed → exited in ${(performance.now() - at).toFixed(0)} ms`,
    );
  });

  it('simulated camera: exits (code 0) when its stdin closes, like gst-launch-1.0', async () => {
    const running = simWithNoise({ width: 160, height: 120, bitrate: 300 });
    await firstFrames(running);
    for (const timer of timers.splice(0)) clearInterval(timer);
    running.child.stdin?.end();
    expect(await running.exited).toEqual({ code: 0, signal: null });
  });

  it('ends by SIGTERM when sent SIGTERM (the pipeline stopped first), as gst-launch-1.0 does', async () => {
    const running = testPatternRareKeyframes();
    await firstFrames(running);
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('dies with its parent even without setpriv: the parent’s end of the control pipe closes', async () => {
    const pipeline = runnerCommand(
      buildVideoPipeline({ source: 'test', host: '127.0.0.1', port: 9, width: 160, height: 120 }),
    );
    // A parent that starts the runner, says its pid, and is then killed outright.
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.argv[1], JSON.parse(process.argv[2]), { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
      console.log(child.pid);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script, pipeline.command, JSON.stringify(pipeline.args)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(parent);
    const pid = await new Promise<number>((resolve) =>
      parent.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    await vi.waitFor(() => expect(childrenOf(parent.pid as number, RUNNER_NAME)).toEqual([pid]), {
      timeout: 5_000,
    });
    await sleep(500);
    expect(runs(pid)).toBe(true);
    const at = performance.now();
    parent.kill('SIGKILL');
    await vi.waitFor(() => expect(runs(pid)).toBe(false), { timeout: 5_000, interval: 10 });
    console.info(
      `[measure] runner: parent SIGKILLed → runner exited in ${(performance.now() - at).toFixed(0)} ms`,
    );
    // Reaped by init in its own time.
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 5_000, interval: 50 });
  });

  it('says what gst-launch-1.0 says when the pipeline cannot be built or fails, with code 1', async () => {
    const erroneous = run({ command: 'gst-launch-1.0', args: ['-v', 'videotestsrc', '!', 'nosuchelement'] });
    expect(await erroneous.exited).toEqual({ code: 1, signal: null });
    expect(lastErrorLine(erroneous.stderr())).toBe('WARNING: erroneous pipeline: no element "nosuchelement"');

    const failing = run(
      buildVideoPipeline({
        source: 'v4l2',
        encoder: 'x264',
        device: '/dev/video-telerace-absent',
        host: '127.0.0.1',
        port: 9,
      }),
    );
    expect(await failing.exited).toEqual({ code: 1, signal: null });
    expect(lastErrorLine(failing.stderr())).toMatch(
      /^ERROR: from element \/GstPipeline:pipeline\d+\/GstV4l2Src:v4l2src\d+: Cannot identify device '\/dev\/video-telerace-absent'\.$/,
    );
  });

  it('v4l2h264enc (a stand-in for the element, no Pi here): bitrate as the int control video_bitrate, keyframe as VIDIOC_S_CTRL on its device', async () => {
    // The runner's own Runner class on a fake element; ioctl recorded, then a real one on /dev/null.
    const harness = `
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location('runner', sys.argv[1])
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
GLib, GObject, Gst, GstVideo = runner.load_gstreamer()
Gst.init(None)
real_ioctl = runner.fcntl.ioctl
class Fcntl:
    @staticmethod
    def ioctl(fd, request, arg):
        print(f'ioctl {fd} {request:#x} {arg.hex()}')
        return real_ioctl(fd, request, arg)
runner.fcntl = Fcntl
class Factory:
    def get_name(self): return 'v4l2h264enc'
class Encoder:
    def __init__(self):
        self.props = {'device-fd': -1, 'extra-controls': Gst.Structure.from_string('controls,video_bitrate=800000,h264_i_frame_period=30,repeat_sequence_header=1')[0]}
    def get_factory(self): return Factory()
    def get_property(self, name): return self.props[name]
    def set_property(self, name, value): self.props[name] = value
class Pipeline:
    def get_by_name(self, name): return Encoder() if name == 'encoder' else None
run = runner.Runner(GLib, GObject, Gst, GstVideo, Pipeline(), None, False)
run.command('bitrate 300')
print(run.encoder.props['extra-controls'].to_string())
run.command('keyframe')
run.encoder.props['device-fd'] = os.open('/dev/null', os.O_RDWR)
run.command('keyframe')
`;
    const child = spawn(PYTHON, ['-B', '-c', harness, RUNNER_SCRIPT], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'control: bitrate 300',
      'controls, video_bitrate=(int)300000, h264_i_frame_period=(int)30, repeat_sequence_header=(int)1;',
      'control: refused keyframe: the encoder has no device open yet',
    ]);
    // linux/videodev2.h: VIDIOC_S_CTRL is 0xc008561c, V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME 0x9909e5
    // (struct v4l2_control: id, then value 1, little-endian here).
    expect(lines[3]).toMatch(/^ioctl \d+ 0xc008561c e509990001000000$/);
    // /dev/null is no V4L2 device: the driver's answer comes back as a refusal.
    expect(lines[4]).toBe('control: refused keyframe: [Errno 25] Inappropriate ioctl for device');
  });

  it('says which packages it needs when GStreamer for Python is missing', async () => {
    // A Python that finds no `gi` module: -I ignores the environment and the user's site, -S the system's.
    const child = spawn(PYTHON, ['-I', '-S', RUNNER_SCRIPT, '--check'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(3);
    expect(stderr).toMatch(
      /^ERROR: GStreamer for Python is missing \(.*\): sudo apt-get install python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0\n$/,
    );
  });
});
