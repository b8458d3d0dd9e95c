/**
 * `npm run bench -- relay`: N controllers each send 50 drive messages per second to N cars for
 * 20 s through the real server's control relay; the cars measure how long each new drive took to
 * arrive and how many never did. The same clients and load then go through a bare `ws` forwarder
 * in the same run: the ratio is the relay's cost. Cars here are protocol-speaking clients in the
 * bench process (not agent processes), so sender and receiver share one clock.
 * Options (environment): RELAY_PAIRS (50), RELAY_RATE (50 per second), RELAY_SECONDS (20).
 */

import { startScript, startTelerace } from './lib/processes.js';
import {
  closePairs,
  type DriveMeasure,
  drive,
  FORWARDER_SCRIPT,
  forwarderPairs,
  type Pair,
  teleracePair,
} from './lib/relay-clients.js';
import { printTable, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { BENCH_SERVER_ENV, logInAdmin, signUpMember } from './lib/telerace-api.js';

const PAIRS = Number(process.env.RELAY_PAIRS ?? 50);
const RATE = Number(process.env.RELAY_RATE ?? 50);
const SECONDS = Number(process.env.RELAY_SECONDS ?? 20);

/** Provisions N cars and N drivers on the real server and opens their sockets. */
async function teleracePairs(base: string): Promise<Pair[]> {
  const admin = await logInAdmin(base);
  const pairs: Pair[] = [];
  for (let i = 0; i < PAIRS; i++) {
    // Each driver comes from its own address, so per-IP limits see many people.
    const ip = `10.77.${Math.floor(i / 250)}.${(i % 250) + 1}`;
    const member = await signUpMember(base, ip);
    pairs.push(await teleracePair(base, admin, member, `Bench ${i + 1}`, ip));
  }
  return pairs;
}

async function measure(pairs: Pair[]): Promise<DriveMeasure> {
  try {
    return await drive(pairs, RATE, SECONDS);
  } finally {
    closePairs(pairs);
  }
}

export async function relayBench(): Promise<void> {
  const baselineServer = await startScript(FORWARDER_SCRIPT, null);
  const base = await measure(await forwarderPairs(baselineServer.url, PAIRS));
  await baselineServer.stop();

  const telerace = await startTelerace(BENCH_SERVER_ENV);
  let ours: DriveMeasure;
  try {
    ours = await measure(await teleracePairs(telerace.url));
  } finally {
    await telerace.stop();
  }

  const b = summarize(base.latencies);
  const o = summarize(ours.latencies);
  const result = {
    pairs: PAIRS,
    rate_per_s: RATE,
    seconds: SECONDS,
    p50_ms: round(o.p50, 3),
    p99_ms: round(o.p99, 3),
    max_ms: round(o.max, 3),
    lost: ours.sent - ours.received,
    baseline_p50_ms: round(b.p50, 3),
    baseline_p99_ms: round(b.p99, 3),
    baseline_max_ms: round(b.max, 3),
    baseline_lost: base.sent - base.received,
    ratio: round(o.p99 / b.p99),
  };
  printTable(`controller → car, ${PAIRS} pairs × ${RATE} drives/s for ${SECONDS} s`, [
    {
      path: 'bare ws forwarder',
      'p50 ms': result.baseline_p50_ms,
      'p99 ms': result.baseline_p99_ms,
      'max ms': result.baseline_max_ms,
      sent: base.sent,
      lost: result.baseline_lost,
    },
    {
      path: 'telerace relay',
      'p50 ms': result.p50_ms,
      'p99 ms': result.p99_ms,
      'max ms': result.max_ms,
      sent: ours.sent,
      lost: result.lost,
    },
  ]);
  console.info(`p99 ratio telerace/baseline: ${result.ratio}`);
  console.info(`written: ${writeResult('relay', result)}`);
}
