/**
 * What a viewer in Chromium sees of a car's camera (issue 43): every frame its <video> presents,
 * with the capture time read back from the frame's strip (apps/car/src/video/timestamp-strip.ts),
 * and Chromium's own inbound-rtp statistics of the video.
 *
 * The page only records (`watchFrames`): for each presented frame (requestVideoFrameCallback) its
 * display time, the browser's count of frames presented so far and the strip's time, or null when
 * the strip cannot be read (a damaged frame). The bench summarizes in Node (`summarizeWindow`).
 * The statistics come from the page's RTCPeerConnections, recorded as they are made by an init
 * script (`recordPeerConnections`): the web app needs no hook of its own.
 */
import type { Page } from 'playwright-core';
import { decodeTimestamp } from '../../../apps/car/src/video/timestamp-strip.js';
import { round } from './report.js';
import { summarize } from './stats.js';

/** One frame the <video> presented. */
export interface PresentedFrame {
  /** When it was to be on screen (ms since the epoch: the page's clock, the car's clock). */
  shownAt: number;
  /** The browser's count of frames presented so far (counts frames the page's callback missed). */
  presented: number;
  /** The capture time read from its strip, or null when the strip is unreadable. */
  captured: number | null;
}

export interface WatchUntil {
  /** Stop once this many frames had a readable strip. */
  readable?: number;
  /** Stop after this long (ms), frames or not. */
  ms?: number;
  /** Fail when more frames than this were unreadable. */
  maxUnreadable?: number;
  /** Fail after this long (ms) without meeting `readable`. */
  timeoutMs?: number;
}

/** In the page: records the frames `selector`'s <video> presents until `until` is met. */
export function watchFrames(page: Page, selector: string, until: WatchUntil): Promise<PresentedFrame[]> {
  return page.evaluate(
    ({ selector, until, decodeSource }) =>
      new Promise<PresentedFrame[]>((resolve, reject) => {
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
        const frames: PresentedFrame[] = [];
        let readable = 0;
        let done = false;
        const finish = (error?: Error) => {
          done = true;
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(frames);
        };
        const timer = setTimeout(
          () =>
            until.ms !== undefined
              ? finish()
              : finish(new Error(`only ${readable} frames with a readable strip in ${until.timeoutMs} ms`)),
          until.ms ?? until.timeoutMs ?? 120_000,
        );
        const onFrame = (_now: number, meta: VideoFrameCallbackMetadata) => {
          if (done) return;
          const width = meta.width;
          const rows = Math.min(12, Math.floor(width / 56));
          canvas.width = width;
          canvas.height = rows;
          context.drawImage(video, 0, 0, width, meta.height, 0, 0, width, meta.height);
          const captured = decode(context.getImageData(0, 0, width, rows).data, width, rows);
          frames.push({
            shownAt: performance.timeOrigin + meta.expectedDisplayTime,
            presented: meta.presentedFrames,
            captured,
          });
          if (captured !== null) readable += 1;
          if (until.readable !== undefined && readable >= until.readable) finish();
          else if (until.maxUnreadable !== undefined && frames.length - readable > until.maxUnreadable)
            finish(new Error('the timestamp strip could not be read from the video'));
          else video.requestVideoFrameCallback(onFrame);
        };
        video.requestVideoFrameCallback(onFrame);
      }),
    { selector, until, decodeSource: decodeTimestamp.toString() },
  );
}

export interface WindowSummary {
  seconds: number;
  /** Frames the browser presented in the window (its own count). */
  presented: number;
  /** Of those, seen by the page's callback and with a readable strip. */
  readable: number;
  /** Seen by the callback with an unreadable strip. */
  damaged: number;
  /** Readable frames over the frames the camera sends in the window at its configured rate. */
  intactPercent: number;
  /** The longest time without a new frame, the window's edges included (ms). */
  longestFreezeMs: number;
  /** Glass-to-glass of the readable frames (ms). */
  g2g: ReturnType<typeof summarize>;
}

/** The frames shown in [from, to) (epoch ms), against a camera sending `fps` frames a second. */
export function summarizeWindow(
  frames: readonly PresentedFrame[],
  { from, to, fps }: { from: number; to: number; fps: number },
): WindowSummary {
  const inside = frames.filter((frame) => frame.shownAt >= from && frame.shownAt < to);
  const first = inside[0];
  const last = inside.at(-1);
  const readable = inside.filter((frame) => frame.captured !== null);
  let longestFreezeMs = 0;
  let previous = from;
  for (const frame of [...inside.map((f) => f.shownAt), to]) {
    longestFreezeMs = Math.max(longestFreezeMs, frame - previous);
    previous = frame;
  }
  const seconds = (to - from) / 1000;
  return {
    seconds,
    presented: first && last ? last.presented - first.presented + 1 : 0,
    readable: readable.length,
    damaged: inside.length - readable.length,
    intactPercent: (100 * readable.length) / (fps * seconds),
    longestFreezeMs,
    g2g: summarize(readable.map((frame) => frame.shownAt - (frame.captured as number))),
  };
}

/** A run of good frames this long is a recovery. */
const SUSTAINED_MS = 1_000;
/** A longer gap between frames breaks a run (the goal's longest freeze). */
const RUN_GAP_MS = 250;

/**
 * Ms from `from` to the first frame of the first second of frames, shown in [from, to), whose
 * strips are readable with glass-to-glass within `boundMs` and that follow each other within
 * 250 ms; null when there is none (still late, damaged or frozen at `to`).
 */
export function recoveredAfterMs(
  frames: readonly PresentedFrame[],
  { from, to, boundMs }: { from: number; to: number; boundMs: number },
): number | null {
  let run: PresentedFrame | null = null;
  let previous = from;
  for (const frame of frames) {
    if (frame.shownAt < from || frame.shownAt >= to) continue;
    const good = frame.captured !== null && frame.shownAt - frame.captured <= boundMs;
    if (!good) run = null;
    else if (!run || frame.shownAt - previous > RUN_GAP_MS) run = frame;
    previous = frame.shownAt;
    if (run && frame.shownAt - run.shownAt >= SUSTAINED_MS) return Math.max(0, run.shownAt - from);
  }
  return null;
}

/**
 * When (ms after `from`) the last frame over `boundMs` glass-to-glass was shown in [from, to), or
 * the last freeze over FREEZE_MS ended; 0 when none: from then on every frame was on time.
 */
export function lateUntilMs(
  frames: readonly PresentedFrame[],
  { from, to, boundMs, freezeMs = 250 }: { from: number; to: number; boundMs: number; freezeMs?: number },
): number {
  let lastLate = from;
  let previous = from;
  for (const frame of frames) {
    if (frame.shownAt < from || frame.shownAt >= to) continue;
    const late = frame.captured === null || frame.shownAt - frame.captured > boundMs;
    if (late || frame.shownAt - previous > freezeMs) lastLate = frame.shownAt;
    previous = frame.shownAt;
  }
  // Frozen until the end: late until the end.
  if (to - previous > freezeMs) lastLate = to;
  return Math.round(lastLate - from);
}

/** Chromium's inbound-rtp statistics of the video, summed over the page's peer connections. */
export interface InboundVideo {
  framesDecoded: number;
  framesDropped: number;
  keyFramesDecoded: number;
  freezeCount: number;
  /** Seconds. */
  totalFreezesDuration: number;
  packetsReceived: number;
  packetsLost: number;
  nackCount: number;
  pliCount: number;
  firCount: number;
  /** Seconds, summed over the frames emitted from the jitter buffer. */
  jitterBufferDelay: number;
  jitterBufferEmittedCount: number;
  /** Peer connections with video the page made so far (a player that restarts makes another). */
  peerConnections: number;
}

const INBOUND_FIELDS = [
  'framesDecoded',
  'framesDropped',
  'keyFramesDecoded',
  'freezeCount',
  'totalFreezesDuration',
  'packetsReceived',
  'packetsLost',
  'nackCount',
  'pliCount',
  'firCount',
  'jitterBufferDelay',
  'jitterBufferEmittedCount',
] as const;

/**
 * Before the page's scripts: every RTCPeerConnection the page makes is kept, and
 * `window.__benchInboundVideo()` sums the video inbound-rtp statistics over them. Each one's are
 * read every 500 ms too, and a closed one counts with its last reading, so the sums only grow and
 * a window's difference stays right across a player's restart (to within the last 500 ms of the
 * closed connection).
 */
export async function recordPeerConnections(page: Page): Promise<void> {
  await page.addInitScript((fields: readonly string[]) => {
    const connections: RTCPeerConnection[] = [];
    const last = new Map<RTCPeerConnection, Record<string, number>>();
    const Native = window.RTCPeerConnection;
    window.RTCPeerConnection = new Proxy(Native, {
      construct(target, args, newTarget) {
        const connection = Reflect.construct(target, args, newTarget) as RTCPeerConnection;
        connections.push(connection);
        return connection;
      },
    });
    const read = async () => {
      for (const connection of connections) {
        if (connection.connectionState === 'closed') continue;
        const sums: Record<string, number> = {};
        (await connection.getStats()).forEach((stat: Record<string, unknown>) => {
          if (stat.type !== 'inbound-rtp' || stat.kind !== 'video') return;
          for (const field of fields)
            if (typeof stat[field] === 'number') sums[field] = (sums[field] ?? 0) + (stat[field] as number);
        });
        if (Object.keys(sums).length === 0) continue;
        // Counters only grow: the larger of two readings is the later one (reads may overlap).
        const before = last.get(connection) ?? {};
        for (const field of fields) sums[field] = Math.max(sums[field] ?? 0, before[field] ?? 0);
        last.set(connection, sums);
      }
    };
    setInterval(() => void read().catch(() => undefined), 500);
    (window as unknown as { __benchInboundVideo: () => Promise<unknown> }).__benchInboundVideo = async () => {
      await read();
      const total: Record<string, number> = { peerConnections: last.size };
      for (const sums of last.values())
        for (const field of fields) total[field] = (total[field] ?? 0) + (sums[field] ?? 0);
      return total;
    };
  }, INBOUND_FIELDS);
}

/** The sums now, or null when the page has no video peer connection (or no recorder). */
export async function inboundVideo(page: Page): Promise<InboundVideo | null> {
  const total = (await page.evaluate(async () => {
    const read = (window as unknown as { __benchInboundVideo?: () => Promise<unknown> }).__benchInboundVideo;
    return read ? await read() : null;
  })) as Record<string, number> | null;
  if (!total?.peerConnections) return null;
  return Object.fromEntries(
    [...INBOUND_FIELDS, 'peerConnections'].map((field) => [field, total[field] ?? 0]),
  ) as unknown as InboundVideo;
}

/** What changed between two readings (peerConnections: how many were made in between). */
export function inboundDelta(before: InboundVideo | null, after: InboundVideo | null): InboundVideo | null {
  if (!after) return null;
  return Object.fromEntries(
    [...INBOUND_FIELDS, 'peerConnections'].map((field) => {
      const key = field as keyof InboundVideo;
      return [field, after[key] - (before?.[key] ?? 0)];
    }),
  ) as unknown as InboundVideo;
}

/** A window's columns for a bench's table: what the viewer saw. */
export function viewerColumns(summary: WindowSummary, stats: InboundVideo | null) {
  const decoded = stats ? stats.framesDecoded : summary.presented;
  return {
    fps: round(decoded / summary.seconds, 1),
    intact_percent: round(summary.intactPercent, 1),
    damaged: summary.damaged,
    longest_freeze_ms: Math.round(summary.longestFreezeMs),
    g2g_p50_ms: round(summary.g2g.p50, 0),
    g2g_p95_ms: round(summary.g2g.p95, 0),
  };
}

/** A window's columns from Chromium's statistics ('' each when they were not reachable). */
export function chromiumColumns(stats: InboundVideo | null) {
  const or = (value: (s: InboundVideo) => number) => (stats ? value(stats) : '');
  return {
    packets_lost: or((s) => s.packetsLost),
    nacks: or((s) => s.nackCount),
    plis: or((s) => s.pliCount),
    firs: or((s) => s.firCount),
    key_frames: or((s) => s.keyFramesDecoded),
    frames_dropped: or((s) => s.framesDropped),
    freezes: or((s) => s.freezeCount),
    freezes_ms: or((s) => Math.round(s.totalFreezesDuration * 1000)),
    jitter_buffer_ms: or((s) =>
      s.jitterBufferEmittedCount > 0
        ? round((1000 * s.jitterBufferDelay) / s.jitterBufferEmittedCount, 1)
        : 0,
    ),
    player_restarts: or((s) => s.peerConnections),
  };
}

/** The car's encoder bitrate (kbit/s) as its telemetry told the control page, and when. */
export interface EncoderSample {
  at: number;
  kbps: number;
}

/**
 * Records the `video.bitrate` of every telemetry message the page's sockets receive (the car's
 * adaptation, as it reports it): call before the page opens its control socket.
 */
export function recordEncoderBitrate(page: Page): EncoderSample[] {
  const samples: EncoderSample[] = [];
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string' || !payload.includes('"telemetry"')) return;
      const kbps = encoderKbps(payload);
      if (kbps !== null) samples.push({ at: Date.now(), kbps });
    }),
  );
  return samples;
}

/** The encoder's bitrate in a control socket message, or null when it is not a telemetry message with one. */
export function encoderKbps(message: string): number | null {
  try {
    const parsed = JSON.parse(message) as { type?: unknown; telemetry?: { video?: { bitrate?: unknown } } };
    const kbps = parsed.type === 'telemetry' ? parsed.telemetry?.video?.bitrate : undefined;
    return typeof kbps === 'number' ? kbps : null;
  } catch {
    return null;
  }
}

/** The encoder's bitrate over a window: its lowest and its median (kbit/s; '' without telemetry). */
export function encoderColumns(
  samples: readonly EncoderSample[],
  { from, to }: { from: number; to: number },
) {
  const inWindow = samples.filter((sample) => sample.at >= from && sample.at <= to).map((s) => s.kbps);
  if (inWindow.length === 0) return { encoder_kbps_min: '' as const, encoder_kbps_p50: '' as const };
  const { p50 } = summarize(inWindow);
  return { encoder_kbps_min: Math.min(...inWindow), encoder_kbps_p50: p50 };
}
