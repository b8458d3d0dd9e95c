import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONTROL_FD, EncoderControl, PYTHON, RUNNER_SCRIPT, runnerCommand } from './encoder-control.js';
import { buildVideoPipeline, MAX_BITRATE, MIN_BITRATE } from './pipeline.js';

/** A control pipe whose lines can be read back. */
function pipe() {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  return { stream, lines: () => written.split('\n').filter(Boolean) };
}

afterEach(() => vi.useRealTimers());

describe('EncoderControl', () => {
  it('writes one line per command', () => {
    const { stream, lines } = pipe();
    const control = new EncoderControl(stream);
    expect(control.setBitrate(300)).toBe(true);
    expect(control.requestKeyframe()).toBe('sent');
    expect(lines()).toEqual(['bitrate 300', 'keyframe']);
  });

  it('writes a bitrate once: the same again is taken as done', () => {
    const { stream, lines } = pipe();
    const control = new EncoderControl(stream);
    expect(control.setBitrate(300)).toBe(true);
    expect(control.setBitrate(300)).toBe(true);
    expect(control.setBitrate(400)).toBe(true);
    expect(control.setBitrate(300)).toBe(true);
    expect(lines()).toEqual(['bitrate 300', 'bitrate 400', 'bitrate 300']);
  });

  it('refuses a bitrate outside the pipeline’s limits, or not a whole kbit/s', () => {
    const { stream, lines } = pipe();
    const control = new EncoderControl(stream);
    for (const kbps of [
      MIN_BITRATE - 1,
      MAX_BITRATE + 1,
      300.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -300,
    ]) {
      expect(() => control.setBitrate(kbps)).toThrow(RangeError);
    }
    control.setBitrate(MIN_BITRATE);
    control.setBitrate(MAX_BITRATE);
    expect(lines()).toEqual([`bitrate ${MIN_BITRATE}`, `bitrate ${MAX_BITRATE}`]);
  });

  it('sends at most one keyframe request per 150 ms: the ones between become one, sent when it ends', () => {
    vi.useFakeTimers();
    let now = 1_000;
    const { stream, lines } = pipe();
    const control = new EncoderControl(stream, { now: () => now });
    const keyframes = () => lines().filter((line) => line === 'keyframe').length;

    expect(control.requestKeyframe()).toBe('sent');
    now += 40;
    vi.advanceTimersByTime(40);
    expect(control.requestKeyframe()).toBe('deferred');
    expect(control.requestKeyframe()).toBe('deferred');
    expect(keyframes()).toBe(1);
    now += 109;
    vi.advanceTimersByTime(109);
    expect(keyframes()).toBe(1);
    now += 1;
    vi.advanceTimersByTime(1);
    expect(keyframes()).toBe(2);
    // That one counts: the next window starts from it.
    now += 100;
    vi.advanceTimersByTime(100);
    expect(control.requestKeyframe()).toBe('deferred');
    now += 50;
    vi.advanceTimersByTime(50);
    expect(keyframes()).toBe(3);
    // A request after a quiet interval goes at once.
    now += 1_000;
    vi.advanceTimersByTime(1_000);
    expect(control.requestKeyframe()).toBe('sent');
    expect(keyframes()).toBe(4);
  });

  it('close() ends the pipe (the runner then exits) and drops a deferred request; nothing is written after', async () => {
    vi.useFakeTimers();
    let now = 1_000;
    const { stream, lines } = pipe();
    const finished = once(stream, 'finish');
    const control = new EncoderControl(stream, { keyframeIntervalMs: 20, now: () => now });
    control.requestKeyframe();
    expect(control.requestKeyframe()).toBe('deferred');
    control.close();
    control.close();
    await finished;
    // Past the time the deferred request was due: it went with the pipe.
    now += 50;
    vi.advanceTimersByTime(50);
    expect(control.open).toBe(false);
    expect(control.requestKeyframe()).toBe('closed');
    expect(control.setBitrate(300)).toBe(false);
    expect(lines()).toEqual(['keyframe']);
  });

  it('a broken pipe (the runner died) closes it without an unhandled error', async () => {
    const { stream } = pipe();
    const control = new EncoderControl(stream);
    const closed = new Promise((resolve) => stream.on('close', resolve));
    stream.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await closed;
    expect(control.open).toBe(false);
    expect(control.requestKeyframe()).toBe('closed');
  });
});

describe('runnerCommand', () => {
  it('runs the same gst-launch-1.0 arguments in the runner, commands on fd 3', () => {
    const pipeline = buildVideoPipeline({ source: 'test', host: '127.0.0.1', port: 5004 });
    expect(runnerCommand(pipeline)).toEqual({
      command: PYTHON,
      args: [RUNNER_SCRIPT, '--control-fd', String(CONTROL_FD), ...pipeline.args],
    });
    expect(RUNNER_SCRIPT).toMatch(/\/gst-runner\.py$/);
  });
});
