/**
 * `npm run bench -- video-rate` (issue 43 item 3): the car's camera when its uplink narrows and
 * widens again. The scene of `video-loss` (lib/car-video-link.ts: 80 ms RTT, no loss), with the
 * car's uplink capped like `tc … tbf rate R burst 32kb latency 300ms` (lib/udp-range-proxy.ts) in
 * steps: none (the reference), 1.5, 0.3, then 3 Mbit/s, one continuous playback. Per step: the
 * viewer's decoded frames per second, the longest time without a new frame, glass-to-glass
 * p50/p95, and how long after the step began glass-to-glass came back within the reference's p50
 * + 100 ms (lib/video-viewer.ts `recoveredAfterMs`: the start of the step's first second of
 * readable frames all within it, without a freeze; "never" when there is none). Two runs, each on
 * a server of its own: the car without adaptation (VIDEO_REPAIR=off: its bitrate fixed, as before
 * issue 43 — the baseline, which fails at 0.3 Mbit/s) and with it (auto: the ingest's reports
 * set the encoder's bitrate, apps/car/src/video/bitrate.ts).
 * Options (environment): VIDEO_RATE_SECONDS (20 per step).
 *
 * VIDEO_LINK=netns (root): the car's agent in a network namespace of its own and the cap the
 * kernel's — `tc qdisc replace … tbf rate R burst 32kb latency 300ms` on the car's end of its veth
 * pair, changed in place at each step (its queue kept) — whose queue and drops the timeline reads
 * from `tc -s`. The 80 ms RTT stays a user-space proxy's, delay only, on this machine's end of the
 * pair (this kernel has no netem; the car's cut and climb answer reports a round trip late, so
 * the delay stays to compare with the proxy's rows). Its result is `video-rate-netns.json`.
 */
import { DEFAULT_SIM_VIDEO } from '../../apps/car/src/settings.js';
import { defaultBitrate } from '../../apps/car/src/video/pipeline.js';
import { startCarVideo, type UplinkCounts, VIDEO_LINK, VIDEO_SELECTOR } from './lib/car-video-link.js';
import { printTable, round, writeResult } from './lib/report.js';
import {
  chromiumColumns,
  type EncoderSample,
  encoderColumns,
  type InboundVideo,
  inboundDelta,
  inboundVideo,
  lateUntilMs,
  type PresentedFrame,
  recoveredAfterMs,
  summarizeWindow,
  viewerColumns,
  watchFrames,
} from './lib/video-viewer.js';

const SECONDS = Number(process.env.VIDEO_RATE_SECONDS ?? 20);
const ONE_WAY_MS = 40;
/** The uplink's cap per step, kbit/s (null: none, the reference). */
const STEPS: (number | null)[] = [null, 1_500, 300, 3_000];
const SETTLE_MS = 3_000;
const FPS = DEFAULT_SIM_VIDEO.framerate;
/** Recovered: glass-to-glass within the reference's p50 plus this. */
const RECOVERED_WITHIN_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const kbps = (kbit: number | null) => (kbit === null ? 'none' : `${kbit / 1000} Mbit/s`);

/** The car without bitrate adaptation (the baseline) and with it. */
const REPAIRS = (process.env.VIDEO_RATE_REPAIRS ?? 'off,auto').split(',');
/** Each capped step sampled every quarter second (in the result); the table shows its first seconds. */
const TIMELINE_MS = SECONDS * 1000;
const TIMELINE_SHOWN_MS = 6_000;
const SAMPLE_MS = 250;

export async function videoRateBench(): Promise<void> {
  const runs: { repair: string; rows: Awaited<ReturnType<typeof runSteps>>['rows'] }[] = [];
  let tbf: Awaited<ReturnType<typeof runSteps>>['tbf'] | undefined;
  for (const repair of REPAIRS) {
    const run = await runSteps(repair);
    runs.push({ repair, rows: run.rows });
    tbf = run.tbf;
  }
  const rows = runs.flatMap(({ repair, rows }) => rows.map((row) => ({ repair, ...row })));
  printTable(
    `The car's video as its uplink narrows and widens: ${SECONDS} s per step, ${2 * ONE_WAY_MS} ms RTT, cap ${VIDEO_LINK === 'netns' ? "tc tbf on the car's veth" : 'like tbf'} burst 32 kB latency 300 ms; recovered = glass-to-glass back within the reference p50 + ${RECOVERED_WITHIN_MS} ms`,
    rows.map(({ chromium: _, timeline: __, ...row }) => row),
  );
  for (const run of runs) {
    const capped = run.rows.find((row) => row.uplink_cap === kbps(300));
    if (capped)
      printTable(
        `repair ${run.repair}: the first seconds of the 0.3 Mbit/s cap`,
        capped.timeline.filter((sample) => sample.at_ms <= TIMELINE_SHOWN_MS),
      );
  }
  printTable(
    "Chromium's inbound-rtp per step",
    rows.map(({ repair, uplink_cap, chromium }) => ({ repair, uplink_cap, ...chromium })),
  );
  const file = writeResult(VIDEO_LINK === 'netns' ? 'video-rate-netns' : 'video-rate', {
    seconds_per_step: SECONDS,
    camera_fps: FPS,
    camera_kbps_configured: defaultBitrate(DEFAULT_SIM_VIDEO.width, DEFAULT_SIM_VIDEO.height, FPS),
    rtt_ms: 2 * ONE_WAY_MS,
    video_link: VIDEO_LINK,
    tbf,
    recovered_within_ms_of_reference_p50: RECOVERED_WITHIN_MS,
    steps: rows,
  });
  console.info(`\nwritten ${file}`);
}

/**
 * A capped step's first TIMELINE_MS, per SAMPLE_MS: what the car sent (kbit/s), its encoder's
 * bitrate then (its telemetry's latest), how long the cap's queue was (ms at the cap's rate), and
 * the frames presented then: readable, unreadable, and the latest's glass-to-glass.
 */
function stepTimeline(
  frames: PresentedFrame[],
  samples: { at: number; bytesIn: number; queuedBytes: number }[],
  encoder: readonly EncoderSample[],
  from: number,
  capKbps: number,
) {
  const inStep = samples.filter((sample) => sample.at >= from && sample.at <= from + TIMELINE_MS);
  return inStep.slice(1).map((sample, i) => {
    const before = inStep[i] as (typeof inStep)[number];
    const shown = frames.filter((frame) => frame.shownAt > before.at && frame.shownAt <= sample.at);
    const readable = shown.filter((frame) => frame.captured !== null);
    const late = readable.map((frame) => frame.shownAt - (frame.captured as number));
    return {
      at_ms: sample.at - from,
      sent_kbps: Math.round(((sample.bytesIn - before.bytesIn) * 8) / (sample.at - before.at)),
      encoder_kbps: encoder.findLast((reading) => reading.at <= sample.at)?.kbps ?? '',
      queue_ms: Math.round((sample.queuedBytes * 8) / capKbps),
      readable: readable.length,
      unreadable: shown.length - readable.length,
      g2g_max_ms: late.length > 0 ? Math.round(Math.max(...late)) : '',
    };
  });
}

async function runSteps(repair: string) {
  const video = await startCarVideo({ oneWayMs: ONE_WAY_MS }, 43, { VIDEO_REPAIR: repair });
  const link = video.link;
  if (!link) throw new Error('no link');
  /** Each step's start, and the end; `lateMs`: the proxy's lateness over the step before. */
  const marks: { at: number; stats: InboundVideo | null; up: UplinkCounts; lateMs: number }[] = [];
  /** Every SAMPLE_MS: what the car had sent and what waited in the cap's queue. */
  const samples: { at: number; bytesIn: number; queuedBytes: number }[] = [];
  // One reading at a time (the namespace's are processes), so that the samples stay in order.
  let sampling = false;
  const sampler = setInterval(async () => {
    if (sampling) return;
    sampling = true;
    const at = Date.now();
    const up = await link.uplink().finally(() => {
      sampling = false;
    });
    samples.push({ at, bytesIn: up.sentBytes, queuedBytes: up.queuedBytes });
  }, SAMPLE_MS);
  let frames: PresentedFrame[];
  try {
    await sleep(SETTLE_MS);
    link.takeMaxLateMs();
    const watching = watchFrames(video.page, VIDEO_SELECTOR, { ms: STEPS.length * SECONDS * 1000 + 500 });
    const started = Date.now();
    // A mark at each step's start (the cap set), and one at the end.
    for (let i = 0; i <= STEPS.length; i++) {
      await sleep(started + i * SECONDS * 1000 - Date.now());
      const cap = STEPS[i];
      if (cap !== undefined) link.setUplinkKbps(cap);
      const at = Date.now();
      const up = await link.uplink();
      marks.push({ at, stats: await inboundVideo(video.page), up, lateMs: link.takeMaxLateMs() });
      if (cap !== undefined) console.info(`repair ${repair}: uplink cap ${kbps(cap)} for ${SECONDS} s`);
    }
    frames = await watching;
  } finally {
    clearInterval(sampler);
    await video.close();
  }

  let reference: number | undefined;
  const rows = STEPS.map((cap, i) => {
    const start = marks[i];
    const end = marks[i + 1];
    if (!start || !end) throw new Error('a step without its marks');
    const summary = summarizeWindow(frames, { from: start.at, to: end.at, fps: FPS });
    reference ??= summary.g2g.p50;
    const recovery =
      cap === null
        ? null
        : recoveredAfterMs(frames, { from: start.at, to: end.at, boundMs: reference + RECOVERED_WITHIN_MS });
    const seconds = (end.at - start.at) / 1000;
    return {
      uplink_cap: kbps(cap),
      ...viewerColumns(summary, inboundDelta(start.stats, end.stats)),
      recovered_after_ms: cap === null ? '(reference)' : recovery === null ? 'never' : Math.round(recovery),
      // From the step's start to the last frame late by more than the bound (or a freeze over 250 ms).
      late_until_ms:
        cap === null
          ? ''
          : lateUntilMs(frames, { from: start.at, to: end.at, boundMs: reference + RECOVERED_WITHIN_MS }),
      ...encoderColumns(video.encoder, { from: start.at, to: end.at }),
      camera_kbps: round(((end.up.sentBytes - start.up.sentBytes) * 8) / 1000 / seconds, 0),
      delivered_kbps: round(((end.up.deliveredBytes - start.up.deliveredBytes) * 8) / 1000 / seconds, 0),
      queue_dropped: end.up.queueDropped - start.up.queueDropped,
      proxy_late_max_ms: Math.round(end.lateMs),
      chromium: chromiumColumns(inboundDelta(start.stats, end.stats)),
      timeline: cap === null ? [] : stepTimeline(frames, samples, video.encoder, start.at, cap),
    };
  });
  return { rows, tbf: { burst_bytes: link.tbf.burstBytes, latency_ms: link.tbf.latencyMs } };
}
