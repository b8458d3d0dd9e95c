/**
 * `telerace_janus_up` says whether Janus answers, as the video service's periodic mountpoint check
 * sees it — not merely whether one is configured. Against a real Janus, with the check period on
 * the app's ManualClock: the server's own Janus frozen (SIGSTOP: its process is there, its ports
 * accept connections, nothing answers) and thawed; Janus as its own service killed (SIGKILL) and
 * started again, its car's mountpoint re-created. The metric goes to 0, then back to 1, and
 * `telerace_janus_last_answer_age_seconds` says how long ago Janus last answered.
 */
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/clock.js';
import { parseExposition, sampleValue } from '../../test/prometheus.js';
import {
  connectCar,
  createCar,
  type ListeningTestApp,
  startListeningTestApp,
  takeCar,
} from '../../test/sockets.js';
import { type JanusService, startJanusService } from '../../test/video.js';

async function janusMetrics(testApp: ListeningTestApp) {
  const response = await fetch(`http://127.0.0.1:${testApp.app.metricsServer?.port}/metrics`);
  const { samples } = parseExposition(await response.text());
  return {
    up: sampleValue(samples, 'telerace_janus_up'),
    age: sampleValue(samples, 'telerace_janus_last_answer_age_seconds'),
  };
}

/** Whether every thread of process `pid` is stopped (state T in /proc). */
async function everyThreadStopped(pid: number): Promise<boolean> {
  const tasks = await readdir(`/proc/${pid}/task`);
  const states = await Promise.all(
    tasks.map(async (task) => (await readFile(`/proc/${pid}/task/${task}/stat`, 'utf8')).split(') ')[1]?.[0]),
  );
  return states.every((state) => state === 'T' || state === 't');
}

const janusUp = async (testApp: ListeningTestApp) => (await janusMetrics(testApp)).up;

describe('telerace_janus_up with the server’s own Janus', () => {
  const clock = new ManualClock();
  let testApp: ListeningTestApp;
  let periodMs: number;

  beforeAll(async () => {
    testApp = await startListeningTestApp({ VIDEO: 'auto', METRICS_PORT: '0' }, { clock });
    await testApp.app.videoStarted();
    periodMs = testApp.config.janusCheckSeconds * 1000;
  }, 60_000);
  afterAll(() => testApp?.close());

  it('is 0 once a check has waited a whole period for a frozen Janus, and 1 again when it answers', async () => {
    // The first check, at start, reached it.
    await expect.poll(() => janusMetrics(testApp)).toEqual({ up: 1, age: 0 });
    // A check Janus already answered may still be on its way here: it must not land after the freeze.
    await testApp.app.video.checkSettled();
    const pid = testApp.app.video.janus.supervisor?.pid;
    if (pid === undefined) throw new Error('no janus');
    process.kill(pid, 'SIGSTOP');
    // kill() returns once the signal is sent; a busy thread of Janus stops a moment later.
    await expect.poll(() => everyThreadStopped(pid)).toBe(true);
    try {
      clock.advance(periodMs);
      // The check has just begun: nothing is known yet.
      expect(await janusUp(testApp)).toBe(1);
      clock.advance(periodMs);
      // A whole period without an answer; the last one came two periods ago.
      expect(await janusMetrics(testApp)).toEqual({ up: 0, age: (2 * periodMs) / 1000 });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // The waiting check gets its answer (or, had it timed out, the next one does).
    await expect
      .poll(async () => {
        const metrics = await janusMetrics(testApp);
        if (metrics.up !== 1) clock.advance(periodMs);
        return metrics;
      })
      .toEqual({ up: 1, age: 0 });
  }, 60_000);
});

describe('telerace_janus_up with Janus as its own service', () => {
  const clock = new ManualClock();
  let janus: JanusService;
  let testApp: ListeningTestApp;
  let periodMs: number;

  beforeAll(async () => {
    janus = await startJanusService();
    testApp = await startListeningTestApp({ VIDEO: 'auto', METRICS_PORT: '0', ...janus.env }, { clock });
    await testApp.app.videoStarted();
    periodMs = testApp.config.janusCheckSeconds * 1000;
  }, 60_000);
  afterAll(async () => {
    await testApp?.close();
    await janus?.dispose();
  });

  it('is 0 after the first check that finds Janus gone, and 1 once it runs again; the car streams again', async () => {
    const driving = await createCar(testApp.app, 'Health 1');
    const car = await connectCar(testApp.host, driving.carId, driving.secret);
    await takeCar(testApp.app, driving);
    const first = await car.nextOfType('video', 10_000);
    expect(await janusUp(testApp)).toBe(1);

    await janus.kill();
    // Nothing asked Janus yet: the metric has not moved.
    expect(await janusUp(testApp)).toBe(1);
    clock.advance(periodMs);
    await expect.poll(() => janusMetrics(testApp)).toEqual({ up: 0, age: periodMs / 1000 });
    expect(testApp.logText()).toContain('Janus does not answer: live video is down until it does');

    await janus.start();
    clock.advance(periodMs);
    await expect.poll(() => janusMetrics(testApp)).toEqual({ up: 1, age: 0 });
    expect(testApp.logText()).toContain('Janus answers again');
    // The restarted Janus had lost the mountpoint: re-created; the car hears of its new key.
    const { stream_id: streamId } = (
      await testApp.app.inject({
        method: 'GET',
        url: `/api/cars/${driving.carId}/status`,
        headers: driving.adminHeaders,
      })
    ).json() as { stream_id: number };
    await expect
      .poll(async () => (await janus.admin.listMountpoints()).map((mountpoint) => mountpoint.id), {
        timeout: 10_000,
      })
      .toContain(streamId);
    // Made again with a new key, which the car hears of (its port on the ingest stays).
    const again = testApp.app.video.mountpointOf(driving.carId);
    expect(await car.nextOfType('video', 10_000)).toMatchObject({
      port: first.port,
      srtp: { key: again?.srtpKey },
    });
    await car.close();
  }, 60_000);
});
