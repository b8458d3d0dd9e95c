import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTrack } from '../sim/track.js';
import { SimCamera, type SimCameraOptions, type SpawnFn } from './sim-camera.js';
import { decodeTimestamp } from './timestamp-strip.js';

const track = createTrack();

/** A fake GStreamer whose stdin completes writes only when `flush()` is called. */
function fakeGst() {
  const pending: Array<() => void> = [];
  const written: Buffer[] = [];
  const stdin = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, done) {
      written.push(Buffer.from(chunk));
      pending.push(done);
    },
  });
  const child = Object.assign(new EventEmitter(), { stdin, stderr: null, kill: vi.fn() });
  const calls: Array<{ command: string; args: string[] }> = [];
  const spawn: SpawnFn = (command, args) => {
    calls.push({ command, args });
    return child as unknown as ChildProcess;
  };
  const flush = async () => {
    while (pending.length) pending.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { child, spawn, calls, written, flush };
}

/** A camera on a car parked on the start line, streaming 160×120 to a local port. */
function parkedCarCamera(options: Partial<SimCameraOptions> & Pick<SimCameraOptions, 'spawn'>) {
  return new SimCamera({
    getState: () => ({ ...track.start, speed: 0 }),
    track,
    host: '127.0.0.1',
    port: 5004,
    width: 160,
    height: 120,
    ...options,
  });
}

afterEach(() => vi.useRealTimers());

describe('SimCamera', () => {
  it('spawns the sim pipeline and writes stamped frames of the right size', async () => {
    const gst = fakeGst();
    const cam = parkedCarCamera({
      getState: () => ({ ...track.start, speed: 1 }),
      width: 320,
      height: 240,
      spawn: gst.spawn,
      now: () => 1_764_113_280_123,
    });
    cam.start();
    expect(gst.calls[0]?.command).toBe('gst-launch-1.0');
    expect(gst.calls[0]?.args.slice(0, 7)).toEqual([
      '-v',
      'fdsrc',
      'fd=0',
      '!',
      'rawvideoparse',
      'width=320',
      'height=240',
    ]);
    expect(cam.captureFrame()).toBe(true);
    await gst.flush();
    expect(gst.written[0]?.length).toBe(320 * 240 * 4);
    expect(decodeTimestamp(gst.written[0] as Buffer, 320, 240)).toBe(1_764_113_280_123);
    cam.stop();
    expect(gst.child.kill).toHaveBeenCalledWith('SIGTERM');
    expect(cam.running).toBe(false);
  });

  it('drops frames instead of queueing when GStreamer falls behind', async () => {
    const gst = fakeGst();
    const cam = parkedCarCamera({
      poolSize: 2,
      spawn: gst.spawn,
    });
    cam.start();
    expect(cam.captureFrame()).toBe(true);
    expect(cam.captureFrame()).toBe(true);
    expect(cam.captureFrame()).toBe(false);
    expect(cam.stats).toEqual({ frames: 2, dropped: 1 });
    await gst.flush();
    await gst.flush();
    expect(cam.captureFrame()).toBe(true);
    cam.stop();
  });

  it('sends frames on its own at the frame rate, and stops when GStreamer exits', async () => {
    vi.useFakeTimers();
    const gst = fakeGst();
    const exits: Array<number | null> = [];
    const cam = parkedCarCamera({
      framerate: 10,
      poolSize: 100,
      spawn: gst.spawn,
    });
    cam.on('exit', (code) => exits.push(code));
    cam.start();
    vi.advanceTimersByTime(1000);
    expect(cam.stats.frames).toBe(10);
    gst.child.emit('exit', 1);
    expect(exits).toEqual([1]);
    expect(cam.running).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(cam.stats.frames).toBe(10);
  });

  it('sends exactly the frame rate over time, and goes on from now after a stall instead of bursting', () => {
    vi.useFakeTimers();
    const gst = fakeGst();
    let blocked = 0;
    const cam = parkedCarCamera({
      framerate: 60,
      poolSize: 10_000,
      spawn: gst.spawn,
      clock: () => performance.now() + blocked,
    });
    cam.start();
    // A 1000/60 ms interval fires every 16 ms in Node: 625 frames in 10 s, stamped 1/60 s apart.
    vi.advanceTimersByTime(10_000);
    expect(cam.stats.frames).toBe(600);
    // The event loop blocked for half a second: the next frame comes, not thirty at once.
    blocked = 500;
    const before = cam.stats.frames;
    vi.advanceTimersByTime(20);
    expect(cam.stats.frames - before).toBeLessThanOrEqual(2);
    vi.advanceTimersByTime(1_000);
    expect(cam.stats.frames - before).toBeGreaterThanOrEqual(60);
    expect(cam.stats.frames - before).toBeLessThanOrEqual(62);
    cam.stop();
  });

  it('starts again with a full pool after GStreamer died with frames in its pipe', () => {
    const first = fakeGst();
    const second = fakeGst();
    let n = 0;
    const cam = parkedCarCamera({
      poolSize: 1,
      spawn: (c, a, o) => (n++ === 0 ? first.spawn : second.spawn)(c, a, o),
    });
    cam.start();
    expect(cam.captureFrame()).toBe(true);
    expect(cam.captureFrame()).toBe(false);
    first.child.emit('exit', null);
    expect(cam.captureFrame()).toBe(false);
    cam.start();
    expect(cam.captureFrame()).toBe(true);
    cam.stop();
  });
});
