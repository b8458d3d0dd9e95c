/**
 * `npm run bench -- video`: glass-to-glass latency on loopback, at 30 and at 60 frames per second
 * in the same run. For each row the built server runs its own Janus and one simulated car
 * (SIM_CARS=1, its camera's rate and size through CAMERA_FRAMERATE and CAMERA_SIZE, which the
 * server's simulated cars inherit) whose camera stamps each frame with its capture time (a strip of
 * blocks, apps/car/src/video/timestamp-strip.ts). Debian's Chromium opens the control page as the
 * car's driver; for each presented video frame the page draws the frame to a canvas, reads the
 * stamp back and compares it with the time the frame is shown — three ways: its expected display
 * time (p50/p95/max, as this bench always did), when the browser submitted it for composition
 * (`presented`) and when the page's callback for it ran (`seen`) —, over 300 frames, split at
 * the time the frame's last packet reached the browser (requestVideoFrameCallback's `receiveTime`):
 * the car and Janus before it, the browser (jitter buffer, decoder, compositor) after it. Beside
 * them: the frames the page decoded per second, what the car costs (its agent and its
 * gst-launch-1.0, % of one core over the same frames, from /proc), and the receiver's own averages
 * (WebRTC stats: jitter buffer, decode).
 * Time to first frame: from the control page's navigation start to its first presented frame
 * (median of five loads, after one cold load — browser, page and Janus just started — reported
 * apart).
 *
 * Baseline, in the same browser and run, at each frame rate: the same stamp drawn on a canvas in
 * the page and played through a <video> element (canvas.captureStream) — the browser's own display
 * path without the camera, the encoder, RTP, Janus or WebRTC. The difference is what the video path
 * adds.
 * Options (environment): VIDEO_FRAMES (300); VIDEO_ROWS (`30,60`): the rows, each `FPS` or
 * `FPS@WIDTHxHEIGHT` (e.g. `30,60,60@1280x720`; without a size, the simulated camera's default),
 * either followed by `+buffer` to hold back the player's request for no playout delay (e.g.
 * `60,60+buffer`: Chromium's jitter buffer against none, in the same run).
 */
import { chromium, type Page } from 'playwright-core';
import { decodeTimestamp } from '../../apps/car/src/video/timestamp-strip.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium.js';
import { driverContext } from './lib/driver-page.js';
import { cpuMs, type Descendant, descendants } from './lib/proc-stats.js';
import { type Running, startTelerace } from './lib/processes.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { BENCH_ADMIN } from './lib/telerace-api.js';

const FRAMES = Number(process.env.VIDEO_FRAMES ?? 300);

/**
 * One row of the bench: the simulated camera's frame rate, its size when not the default, and
 * whether the player's request for no playout delay is held back (Chromium's jitter buffer then
 * paces the frames, as before the player asked).
 */
interface RowSpec {
  framerate: number;
  size?: string;
  jitterBuffer?: boolean;
}

/** VIDEO_ROWS: `30,60` by default; each item `FPS`, `FPS@WIDTHxHEIGHT`, either followed by `+buffer`. */
function parseRows(text: string): RowSpec[] {
  return text.split(',').map((item) => {
    const found = /^\s*(\d{1,2})(?:@(\d{2,4}x\d{2,4}))?(\+buffer)?\s*$/.exec(item);
    const framerate = Number(found?.[1]);
    if (!found || framerate < 1 || framerate > 60) {
      throw new Error(
        `VIDEO_ROWS: ${JSON.stringify(item)} is not FPS, FPS@WIDTHxHEIGHT or either +buffer (FPS 1–60)`,
      );
    }
    return {
      framerate,
      ...(found[2] ? { size: found[2] } : {}),
      ...(found[3] ? { jitterBuffer: true } : {}),
    };
  });
}

const ROWS = parseRows(process.env.VIDEO_ROWS ?? '30,60');
const rowName = (row: RowSpec) =>
  `${row.framerate} fps${row.size ? ` ${row.size}` : ''}${row.jitterBuffer ? ', jitter buffer' : ''}`;
/** Control-page loads measured after one cold load (browser and Janus just started), reported apart. */
const LOADS = 5;

/** What the page saw of `count` presented frames. */
interface Frames {
  /** Display time minus the stamped capture time, per frame (ms). */
  latencies: number[];
  /** The frame's last packet in the browser minus its capture time (ms): the car, RTP and Janus. */
  toReceived: number[];
  /** Display time minus that arrival (ms): jitter buffer, decoder and compositor. */
  receivedToShown: number[];
  /**
   * The same frames measured when the page's callback for them ran (ms after capture): an upper
   * bound. Headless Chromium's expected display time is a nominal refresh time: from one page to the
   * next it moves by about two refresh intervals (the canvas baseline at 60 fps reads −2 ms in some
   * runs, 31 ms in others), and it can lie before the frame's arrival.
   */
  seenByPage: number[];
  /** When the page's callback ran minus the frame's arrival (ms). */
  receivedToSeen: number[];
  /**
   * When the browser submitted the frame for composition, minus its capture time (ms): the earliest
   * it can be on a screen, which shows it at the next refresh (up to 16.7 ms later at 60 Hz). The
   * steadiest of the three in headless Chromium.
   */
  presented: number[];
  /** Frames the element got per second (getVideoPlaybackQuality), and frames presented per second. */
  decodedFps: number;
  presentedFps: number;
}

/**
 * In the page: for `count` presented frames of the first <video>, the display time minus the
 * stamped capture time (ms), and where the frame's last packet arrived in between (WebRTC frames
 * only). `decode` is decodeTimestamp's source.
 */
function collectFrames(page: Page, count: number, selector: string): Promise<Frames> {
  return page.evaluate(
    ({ count, selector, decodeSource }) =>
      new Promise<Frames>((resolve, reject) => {
        const decode = new Function(`return (${decodeSource})`)() as (
          rgba: ArrayLike<number>,
          width: number,
          height: number,
        ) => number | null;
        const video = document.querySelector(selector) as HTMLVideoElement | null;
        if (!video) return reject(new Error(`no ${selector}`));
        const canvas = document.createElement('canvas');
        const context = canvas.getContext('2d', { willReadFrequently: true });
        if (!context) return reject(new Error('no 2d context'));
        const frames: Frames = {
          latencies: [],
          toReceived: [],
          receivedToShown: [],
          seenByPage: [],
          receivedToSeen: [],
          presented: [],
          decodedFps: 0,
          presentedFps: 0,
        };
        let misses = 0;
        let first: { at: number; decoded: number; presented: number } | undefined;
        const timeout = setTimeout(
          () => reject(new Error(`only ${frames.latencies.length} frames decoded`)),
          120_000,
        );
        const onFrame = (now: number, meta: VideoFrameCallbackMetadata) => {
          const seenAt = performance.timeOrigin + performance.now();
          const decoded = video.getVideoPlaybackQuality().totalVideoFrames;
          first ??= { at: now, decoded, presented: meta.presentedFrames };
          const shownAt = performance.timeOrigin + meta.expectedDisplayTime;
          const width = meta.width;
          const rows = Math.min(12, Math.floor(width / 56));
          canvas.width = width;
          canvas.height = rows;
          context.drawImage(video, 0, 0, width, meta.height, 0, 0, width, meta.height);
          const captured = decode(context.getImageData(0, 0, width, rows).data, width, rows);
          if (captured === null) misses += 1;
          else {
            frames.latencies.push(shownAt - captured);
            frames.seenByPage.push(seenAt - captured);
            frames.presented.push(performance.timeOrigin + meta.presentationTime - captured);
            if (meta.receiveTime !== undefined) {
              const receivedAt = performance.timeOrigin + meta.receiveTime;
              frames.toReceived.push(receivedAt - captured);
              frames.receivedToShown.push(shownAt - receivedAt);
              frames.receivedToSeen.push(seenAt - receivedAt);
            }
          }
          if (frames.latencies.length >= count) {
            clearTimeout(timeout);
            const seconds = (now - first.at) / 1000;
            frames.decodedFps = (decoded - first.decoded) / seconds;
            frames.presentedFps = (meta.presentedFrames - first.presented) / seconds;
            resolve(frames);
          } else if (misses > count * 3) {
            clearTimeout(timeout);
            reject(new Error('the timestamp strip could not be read from the video'));
          } else video.requestVideoFrameCallback(onFrame);
        };
        video.requestVideoFrameCallback(onFrame);
      }),
    { count, selector, decodeSource: decodeTimestamp.toString() },
  );
}

/** The page's steps to its first frame, in order: navigation timing, then the player's `video:` marks. */
const STEPS = [
  'html',
  'scripts',
  'start',
  'janus-loaded',
  'session',
  'attached',
  'offer',
  'answer',
  'connected',
  'first-frame',
] as const;
type Step = (typeof STEPS)[number];

interface LoadTimes {
  first: number;
  thirty: number;
  /** Ms from navigation start at which each step was reached (absent when not reached). */
  steps: Partial<Record<Step, number>>;
}

/**
 * Milliseconds from the control page's navigation start to its first presented video frame, and
 * to its 30th (the e2e test's "30 frames", whose 5 s bar is measured here rather than asserted),
 * with the steps on the way: the HTML's arrival, the scripts run (DOMContentLoaded), then the
 * player's marks (lib/janus-stream.ts `VideoStep`).
 */
function loadTimes(page: Page): Promise<LoadTimes> {
  return page.evaluate(
    () =>
      new Promise<LoadTimes>((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error('no 30 video frames within 30 s')), 30_000);
        let first = 0;
        let count = 0;
        const steps = (): Partial<Record<Step, number>> => {
          const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
          const found: Record<string, number> = {};
          if (navigation) {
            found.html = navigation.responseEnd;
            found.scripts = navigation.domContentLoadedEventEnd;
          }
          for (const mark of performance.getEntriesByType('mark')) {
            if (mark.name.startsWith('video:') && !(mark.name.slice(6) in found)) {
              found[mark.name.slice(6)] = mark.startTime;
            }
          }
          return found;
        };
        const onFrame = (video: HTMLVideoElement) => (_now: number, meta: VideoFrameCallbackMetadata) => {
          count += meta.presentedFrames > count ? meta.presentedFrames - count : 1;
          if (first === 0) first = meta.presentationTime;
          if (count >= 30) {
            clearTimeout(timeout);
            resolve({ first, thirty: meta.presentationTime, steps: steps() });
          } else video.requestVideoFrameCallback(onFrame(video));
        };
        const watch = () => {
          const video = document.querySelector('[data-testid="video"]') as HTMLVideoElement | null;
          if (!video) {
            setTimeout(watch, 5);
            return;
          }
          video.requestVideoFrameCallback(onFrame(video));
        };
        watch();
      }),
  );
}

/** Per step: when it was reached (median over the loads) and how long it took after the previous one. */
function stepRows(loads: LoadTimes[]): Row[] {
  const rows: Row[] = [];
  let previous = 0;
  for (const step of STEPS) {
    const times = loads.map((load) => load.steps[step]).filter((t): t is number => t !== undefined);
    if (times.length === 0) continue;
    const at = median(times);
    rows.push({ step, at_ms: Math.round(at), after_previous_ms: Math.round(at - previous) });
    previous = at;
  }
  const presented = median(loads.map((load) => load.first));
  rows.push({
    step: 'presented',
    at_ms: Math.round(presented),
    after_previous_ms: Math.round(presented - previous),
  });
  return rows;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The baseline page: a canvas stamped with the clock `framerate` times a second, played through a <video> element. */
async function baselineFrames(page: Page, count: number, framerate: number): Promise<Frames> {
  await page.goto('about:blank');
  await page.evaluate(
    ({ encodeSource, framerate }) => {
      const encode = new Function(`return (${encodeSource})`)() as (
        rgba: Uint8ClampedArray,
        width: number,
        time: number,
      ) => void;
      const canvas = document.createElement('canvas');
      canvas.width = 640;
      canvas.height = 480;
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no 2d context');
      const image = context.createImageData(640, 12);
      const draw = () => {
        encode(image.data, 640, Math.floor(Date.now()));
        context.putImageData(image, 0, 0);
        setTimeout(draw, 1000 / framerate);
      };
      draw();
      const video = document.createElement('video');
      video.setAttribute('data-testid', 'baseline');
      video.muted = true;
      video.autoplay = true;
      video.srcObject = canvas.captureStream(framerate);
      document.body.append(video);
      void video.play();
    },
    { encodeSource: encodeForPage, framerate },
  );
  return collectFrames(page, count, '[data-testid="baseline"]');
}

/** encodeTimestamp without imports, for the baseline page (same layout as the car's). */
const encodeForPage = `function (rgba, width, timeMs) {
  const size = Math.min(12, Math.floor(width / 56));
  const data = [];
  let rest = timeMs;
  for (let i = 0; i < 48; i++) { data.unshift(rest % 2); rest = Math.floor(rest / 2); }
  let check = 0;
  for (let i = 0; i < 48; i += 4) check ^= (data[i] << 3) | (data[i + 1] << 2) | (data[i + 2] << 1) | data[i + 3];
  const bits = [1, 0, ...data, (check >> 3) & 1, (check >> 2) & 1, (check >> 1) & 1, check & 1, 0, 1];
  for (let y = 0; y < size; y++) for (let b = 0; b < 56; b++) for (let x = 0; x < size; x++) {
    const i = (y * width + b * size + x) * 4; const v = bits[b] ? 255 : 0;
    rgba[i] = v; rgba[i + 1] = v; rgba[i + 2] = v; rgba[i + 3] = 255;
  }
}`;

/** Every RTCPeerConnection the page makes, kept for the bench to read its stats (an init script). */
const KEEP_PEERS = `(() => {
  const Native = window.RTCPeerConnection;
  if (!Native) return;
  const peers = [];
  window.__benchPeers = peers;
  const Kept = function (...args) {
    const pc = new Native(...args);
    peers.push(pc);
    return pc;
  };
  Kept.prototype = Native.prototype;
  Object.setPrototypeOf(Kept, Native);
  window.RTCPeerConnection = Kept;
})();`;

/**
 * Holds back the player's `configure` (its request for no playout delay), for a `+buffer` row: the
 * picture then goes through Chromium's jitter buffer as it did before the player asked.
 */
const HOLD_BACK_PLAYOUT_DELAY = `(() => {
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string' && data.includes('"configure"')) return;
    return send.call(this, data);
  };
})();`;

/** The receiver's running totals (inbound-rtp video, WebRTC stats) and the negotiated fmtp. */
interface ReceiverTotals {
  framesDecoded: number;
  framesDropped: number;
  jitterBufferDelay: number;
  jitterBufferTargetDelay: number;
  jitterBufferEmittedCount: number;
  totalDecodeTime: number;
  totalProcessingDelay: number;
  freezeCount: number;
  /** The H.264 format line Janus offered, and the one Chromium answered. */
  offered: string;
  answered: string;
  /** Whether both sides took the playout-delay RTP header extension (the sender can then ask for no delay). */
  playoutDelayExtension: boolean;
}

function receiverTotals(page: Page): Promise<ReceiverTotals | null> {
  return page.evaluate(async () => {
    const peers = (window as unknown as { __benchPeers?: RTCPeerConnection[] }).__benchPeers ?? [];
    const pc = peers.findLast((peer) => peer.connectionState === 'connected');
    if (!pc) return null;
    const stats = [...(await pc.getStats()).values()] as Record<string, unknown>[];
    const inbound = stats.find((stat) => stat.type === 'inbound-rtp' && stat.kind === 'video');
    if (!inbound) return null;
    const fmtp = (sdp: string | undefined) => /^a=fmtp:96 (.*)$/m.exec(sdp ?? '')?.[1]?.trim() ?? '';
    const number = (key: string) => (typeof inbound[key] === 'number' ? (inbound[key] as number) : 0);
    return {
      framesDecoded: number('framesDecoded'),
      framesDropped: number('framesDropped'),
      jitterBufferDelay: number('jitterBufferDelay'),
      jitterBufferTargetDelay: number('jitterBufferTargetDelay'),
      jitterBufferEmittedCount: number('jitterBufferEmittedCount'),
      totalDecodeTime: number('totalDecodeTime'),
      totalProcessingDelay: number('totalProcessingDelay'),
      freezeCount: number('freezeCount'),
      offered: fmtp(pc.remoteDescription?.sdp),
      answered: fmtp(pc.localDescription?.sdp),
      playoutDelayExtension: [pc.remoteDescription?.sdp, pc.localDescription?.sdp].every((sdp) =>
        (sdp ?? '').includes('rtp-hdrext/playout-delay'),
      ),
    };
  });
}

/** The receiver's averages per frame (ms) between two readings of its totals. */
function receiverAverages(before: ReceiverTotals | null, after: ReceiverTotals | null) {
  if (!before || !after) return null;
  const emitted = Math.max(1, after.jitterBufferEmittedCount - before.jitterBufferEmittedCount);
  const decoded = Math.max(1, after.framesDecoded - before.framesDecoded);
  return {
    jitter_buffer_ms: round(((after.jitterBufferDelay - before.jitterBufferDelay) * 1000) / emitted, 1),
    jitter_buffer_target_ms: round(
      ((after.jitterBufferTargetDelay - before.jitterBufferTargetDelay) * 1000) / emitted,
      1,
    ),
    decode_ms: round(((after.totalDecodeTime - before.totalDecodeTime) * 1000) / decoded, 1),
    received_to_decoded_ms: round(
      ((after.totalProcessingDelay - before.totalProcessingDelay) * 1000) / decoded,
      1,
    ),
    frames_dropped: after.framesDropped - before.framesDropped,
    freezes: after.freezeCount - before.freezeCount,
    offered: after.offered,
    answered: after.answered,
    playout_delay_extension: after.playoutDelayExtension,
  };
}

/** The agent's GStreamer: `gst-runner` (Python, apps/car/src/video/gst-runner.py) or `gst-launch-1.0`. */
const isGStreamer = (p: Descendant) =>
  p.comm.startsWith('gst-launch') || p.comm === 'gst-runner' || p.cmdline.includes('gst-runner.py');

/** The simulated car's processes under the server: its agent, the agent's GStreamer, and Janus. */
function carProcesses(server: Running): { agent?: number; gst?: number; janus?: number } {
  const below = server.child.pid === undefined ? [] : descendants(server.child.pid);
  return {
    // Node names its main thread `MainThread`: the agent is known by its script's path.
    agent: below.find((p) => !isGStreamer(p) && p.cmdline.includes('apps/car/'))?.pid,
    gst: below.find(isGStreamer)?.pid,
    janus: below.find((p) => p.comm === 'janus')?.pid,
  };
}

/** Measures `measure` and, meanwhile, what the processes spent: % of one core each. */
async function withCpu<T>(
  pids: Record<string, number | undefined>,
  measure: () => Promise<T>,
): Promise<{ result: T; cpu: Record<string, number> }> {
  const before = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, pid === undefined ? Number.NaN : cpuMs(pid)]),
  );
  const startedAt = performance.now();
  const result = await measure();
  const elapsed = performance.now() - startedAt;
  const cpu = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [
      name,
      pid === undefined ? Number.NaN : round(((cpuMs(pid) - (before[name] ?? 0)) / elapsed) * 100, 1),
    ]),
  );
  return { result, cpu };
}

interface RowResult {
  row: RowSpec;
  frames: Frames;
  cpu: Record<string, number>;
  receiver: ReturnType<typeof receiverAverages>;
  cold: LoadTimes;
  warm: LoadTimes[];
}

/** One row: its own server and simulated car at the row's rate, a fresh browser context. */
async function measureRow(
  browser: Awaited<ReturnType<typeof chromium.launch>>,
  row: RowSpec,
): Promise<RowResult> {
  const server = await startTelerace({
    SIM_CARS: '1',
    VIDEO: 'auto',
    ADMIN_EMAIL: BENCH_ADMIN.email,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    // The server's simulated cars inherit its environment (docs/car.md "Video").
    CAMERA_FRAMERATE: String(row.framerate),
    ...(row.size ? { CAMERA_SIZE: row.size } : {}),
  });
  try {
    const base = server.url;
    const { context, controlPath } = await driverContext(browser, base);
    try {
      await context.addInitScript({ content: KEEP_PEERS });
      if (row.jitterBuffer) await context.addInitScript({ content: HOLD_BACK_PLAYOUT_DELAY });
      const page = await context.newPage();

      await page.goto(controlPath);
      const cold = await loadTimes(page);
      const warm: LoadTimes[] = [];
      for (let i = 0; i < LOADS; i++) {
        await page.goto(controlPath);
        warm.push(await loadTimes(page));
      }
      const before = await receiverTotals(page);
      const { result: frames, cpu } = await withCpu(carProcesses(server), () =>
        collectFrames(page, FRAMES, '[data-testid="video"]'),
      );
      const receiver = receiverAverages(before, await receiverTotals(page));
      return { row, frames, cpu, receiver, cold, warm };
    } finally {
      await context.close();
    }
  } finally {
    await server.stop();
  }
}

const ms = (values: number[]) => {
  const summary = summarize(values);
  return { p50: round(summary.p50, 1), p95: round(summary.p95, 1), max: round(summary.max, 1) };
};

/** A row's glass-to-glass columns: as shown, presented and seen by the page, and frames decoded a second. */
function latencyColumns(frames: Frames) {
  const total = ms(frames.latencies);
  const seen = ms(frames.seenByPage);
  return {
    shown_p50: total.p50,
    shown_p95: total.p95,
    shown_max: total.max,
    presented_p50: ms(frames.presented).p50,
    presented_p95: ms(frames.presented).p95,
    seen_p50: seen.p50,
    seen_p95: seen.p95,
    decoded_fps: round(frames.decodedFps, 1),
  };
}

export async function videoBench(): Promise<void> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  try {
    const results: RowResult[] = [];
    for (const row of ROWS) results.push(await measureRow(browser, row));
    const baselines: { framerate: number; frames: Frames }[] = [];
    const baselineContext = await browser.newContext();
    await baselineContext.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    for (const framerate of new Set(ROWS.map((row) => row.framerate))) {
      const page = await baselineContext.newPage();
      baselines.push({ framerate, frames: await baselineFrames(page, FRAMES, framerate) });
      await page.close();
    }
    await baselineContext.close();

    printTable(`Glass-to-glass video latency on loopback (${FRAMES} frames, ms; CPU in % of one core)`, [
      ...results.map(({ row, frames, cpu }) => {
        return {
          path: `sim camera ${rowName(row)} → x264 → RTP → Janus → WebRTC → <video>`,
          ...latencyColumns(frames),
          car_cpu: round((cpu.agent ?? Number.NaN) + (cpu.gst ?? Number.NaN), 1),
          agent_cpu: cpu.agent ?? '',
          gst_cpu: cpu.gst ?? '',
          janus_cpu: cpu.janus ?? '',
        };
      }),
      ...baselines.map(({ framerate, frames }) => {
        return {
          path: `baseline ${framerate} fps: canvas → captureStream → <video>`,
          ...latencyColumns(frames),
          car_cpu: '',
          agent_cpu: '',
          gst_cpu: '',
          janus_cpu: '',
        };
      }),
    ]);
    printTable(
      "Where a frame's time goes (ms): capture → its last packet in the browser → shown; the receiver's averages",
      results.map(({ row, frames, receiver }) => {
        const sent = ms(frames.toReceived);
        const shown = ms(frames.receivedToShown);
        return {
          row: rowName(row),
          to_received_p50: sent.p50,
          to_received_p95: sent.p95,
          received_to_shown_p50: shown.p50,
          received_to_shown_p95: shown.p95,
          received_to_seen_p50: ms(frames.receivedToSeen).p50,
          received_to_seen_p95: ms(frames.receivedToSeen).p95,
          jitter_buffer: receiver?.jitter_buffer_ms ?? '',
          jitter_target: receiver?.jitter_buffer_target_ms ?? '',
          decode: receiver?.decode_ms ?? '',
          received_to_decoded: receiver?.received_to_decoded_ms ?? '',
          dropped: receiver?.frames_dropped ?? '',
          presented_fps: round(frames.presentedFps, 1),
        };
      }),
    );
    printTable(
      'H.264 format parameters (payload type 96): offered by Janus, answered by Chromium',
      results.map(({ row, receiver }) => ({
        row: rowName(row),
        offered: receiver?.offered ?? '',
        answered: receiver?.answered ?? '',
        playout_delay_extension: receiver ? String(receiver.playout_delay_extension) : '',
      })),
    );
    printTable(
      'Time to first frame (control page load → first / 30th presented frame)',
      results.map(({ row, cold, warm }) => ({
        row: rowName(row),
        cold_ms: Math.round(cold.first),
        warm_loads_ms: warm.map((load) => Math.round(load.first)).join(', '),
        median_ms: Math.round(median(warm.map((load) => load.first))),
        '30_frames_median_ms': Math.round(median(warm.map((load) => load.thirty))),
      })),
    );
    for (const { row, cold, warm } of results) {
      printTable(
        `Where the first frame's time goes, ${rowName(row)}, warm loads (median ms from navigation start)`,
        stepRows(warm),
      );
      printTable(`The same, ${rowName(row)}, cold load`, stepRows([cold]));
    }
    const file = writeResult('video', {
      frames: FRAMES,
      rows: results.map(({ row, frames, cpu, receiver, cold, warm }) => {
        const total = ms(frames.latencies);
        return {
          framerate: row.framerate,
          size: row.size ?? 'default',
          player_configure: row.jitterBuffer ? 'held back (+buffer)' : 'passed through',
          g2g_p50_ms: total.p50,
          g2g_p95_ms: total.p95,
          g2g_max_ms: total.max,
          to_received_ms: ms(frames.toReceived),
          received_to_shown_ms: ms(frames.receivedToShown),
          presented_ms: ms(frames.presented),
          seen_by_page_ms: ms(frames.seenByPage),
          received_to_seen_ms: ms(frames.receivedToSeen),
          decoded_fps: round(frames.decodedFps, 1),
          presented_fps: round(frames.presentedFps, 1),
          cpu_percent_of_one_core: cpu,
          receiver,
          first_frame_ms: Math.round(median(warm.map((load) => load.first))),
          first_frame_loads_ms: warm.map((load) => Math.round(load.first)),
          first_frame_cold_ms: Math.round(cold.first),
          frames_30_ms: Math.round(median(warm.map((load) => load.thirty))),
          frames_30_cold_ms: Math.round(cold.thirty),
          first_frame_steps_ms: Object.fromEntries(stepRows(warm).map((step) => [step.step, step.at_ms])),
          first_frame_cold_steps_ms: Object.fromEntries(
            stepRows([cold]).map((step) => [step.step, step.at_ms]),
          ),
        };
      }),
      baselines: baselines.map(({ framerate, frames }) => ({
        what: 'canvas → captureStream → <video> in the same browser',
        framerate,
        ...ms(frames.latencies),
        presented_ms: ms(frames.presented),
        seen_by_page_ms: ms(frames.seenByPage),
      })),
      targets: { g2g_p95_ms: 120, g2g_p95_60fps_ms: 35, first_frame_ms: 1_000, frames_30_ms: 5_000 },
    });
    console.info(`\nwritten ${file}`);
  } finally {
    await browser.close();
  }
}
