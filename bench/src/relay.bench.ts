/**
 * `npm run bench -- relay`: N controllers each send 50 drive messages per second to N cars for
 * 20 s through the real server's control relay; the cars measure how long each new drive took to
 * arrive and how many never did. The same clients and load go through a bare `ws` forwarder in
 * the same run: the ratio is the relay's cost. Both servers stay up and the two paths are driven
 * in alternating rounds (bare, relay, relay, bare, …): a spell of noise on the machine (a busy
 * neighbour, the kernel's memory monitor) lasting tens of seconds falls on both, not on whichever
 * path ran then. Each path's server CPU per drive (from /proc) is reported beside its latency.
 * Cars here are protocol-speaking clients in the bench process (not agent processes), so sender
 * and receiver share one clock.
 *
 * Scale-out (issue 15), when PostgreSQL and Redis are reachable: two instances on them; the same
 * load with every driver on instance A and their car on instance B (each drive crosses Redis),
 * beside the same load with driver and car both on A, in the same run: the difference is the
 * Redis hop's cost. Target: cross-instance p99 ≤ 5 ms on loopback. RELAY_CROSS=0 skips it.
 * Options (environment): RELAY_PAIRS (50), RELAY_RATE (50 per second), RELAY_SECONDS (20 per
 * path), RELAY_ROUNDS (4: the seconds split into that many rounds per path), and
 * RELAY_WARMUP_SECONDS (3): the same drives before each measured run, not counted.
 */

import { startInstances } from './lib/instances.js';
import { cpuMs } from './lib/proc-stats.js';
import { type Running, startScript, startTelerace } from './lib/processes.js';
import {
  closePairs,
  connectCar,
  type DriveMeasure,
  drive,
  FORWARDER_SCRIPT,
  forwarderPairs,
  type Pair,
  takeControl,
  teleracePair,
} from './lib/relay-clients.js';
import { printTable, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { BENCH_SERVER_ENV, createCar, logInAdmin, signUpMember } from './lib/telerace-api.js';

const PAIRS = Number(process.env.RELAY_PAIRS ?? 50);
const RATE = Number(process.env.RELAY_RATE ?? 50);
const SECONDS = Number(process.env.RELAY_SECONDS ?? 20);
const WARMUP_SECONDS = Number(process.env.RELAY_WARMUP_SECONDS ?? 3);
const ROUNDS = Number(process.env.RELAY_ROUNDS ?? 4);

/** One server's pairs, and what its rounds measured. */
interface RelayPath {
  pairs: Pair[];
  pid: number;
  measured: DriveMeasure;
  /** The server's CPU time (user + system, every thread) over the measured rounds. */
  cpuMs: number;
}

function pathOf(server: Running, pairs: Pair[]): RelayPath {
  const pid = server.child.pid;
  if (pid === undefined) throw new Error('the server has no pid');
  return { pairs, pid, measured: { latencies: [], sent: 0, received: 0 }, cpuMs: 0 };
}

/**
 * Warms both paths up, then drives them in alternating rounds (ABBA…), SECONDS per path in all:
 * the same machine conditions for both, round by round.
 */
async function interleaved(paths: [RelayPath, RelayPath]): Promise<void> {
  for (const path of paths) await drive(path.pairs, RATE, WARMUP_SECONDS);
  const seconds = SECONDS / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of round % 2 === 0 ? paths : [...paths].reverse()) {
      const before = cpuMs(path.pid);
      const measured = await drive(path.pairs, RATE, seconds);
      path.cpuMs += cpuMs(path.pid) - before;
      path.measured.latencies.push(...measured.latencies);
      path.measured.sent += measured.sent;
      path.measured.received += measured.received;
    }
  }
}

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

/** Pairs whose car's socket is on `carBase` and whose driver's on `driverBase` (instances of one site). */
async function splitPairs(driverBase: string, carBase: string, label: string): Promise<Pair[]> {
  const admin = await logInAdmin(driverBase);
  const pairs: Pair[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const ip = `10.78.${Math.floor(i / 250)}.${(i % 250) + 1}`;
    const member = await signUpMember(driverBase, ip);
    const car = await createCar(driverBase, admin, `${label} ${i + 1}`);
    const carSocket = await connectCar(carBase, car);
    const controller = await takeControl(driverBase, admin, car.id, member, ip);
    pairs.push({ controller, car: carSocket });
  }
  // The drivers' instance hears `car.online` from the cars' one before the first drive.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return pairs;
}

/** Same-instance and cross-instance drives on two instances (PostgreSQL + Redis), or null without them. */
async function scaleOut(): Promise<{ same: DriveMeasure; cross: DriveMeasure } | null> {
  if (process.env.RELAY_CROSS === '0') return null;
  const instances = await startInstances(2);
  if (!instances) return null;
  try {
    const [a, b] = instances.servers;
    if (!a || !b) throw new Error('two instances expected');
    const same = await measure(await splitPairs(a.url, a.url, 'Same instance'));
    const cross = await measure(await splitPairs(a.url, b.url, 'Cross instance'));
    return { same, cross };
  } finally {
    await instances.stop();
  }
}

async function measure(pairs: Pair[]): Promise<DriveMeasure> {
  try {
    // Warm-up, not counted, the same for every path: the first seconds measure the JIT compiling
    // the relay's path (a server's first run measured p99 1.06 ms, its second 0.69 ms), not the relay.
    await drive(pairs, RATE, WARMUP_SECONDS);
    return await drive(pairs, RATE, SECONDS);
  } finally {
    closePairs(pairs);
  }
}

/** The bare forwarder and the relay, both up, driven in alternating rounds. */
async function besideBaseline(): Promise<{ bare: RelayPath; relay: RelayPath }> {
  const baselineServer = await startScript(FORWARDER_SCRIPT, null);
  const telerace = await startTelerace(BENCH_SERVER_ENV).catch(async (error: unknown) => {
    await baselineServer.stop();
    throw error;
  });
  const opened: Pair[][] = [];
  try {
    const bare = pathOf(baselineServer, await forwarderPairs(baselineServer.url, PAIRS));
    opened.push(bare.pairs);
    const relay = pathOf(telerace, await teleracePairs(telerace.url));
    opened.push(relay.pairs);
    await interleaved([bare, relay]);
    return { bare, relay };
  } finally {
    for (const pairs of opened) closePairs(pairs);
    await baselineServer.stop();
    await telerace.stop();
  }
}

/** Server CPU per drive forwarded, in µs. */
const cpuPerDrive = (path: RelayPath) => (path.cpuMs * 1000) / Math.max(1, path.measured.sent);

export async function relayBench(): Promise<void> {
  const { bare, relay } = await besideBaseline();
  const base = bare.measured;
  const ours = relay.measured;

  const split = await scaleOut();

  const b = summarize(base.latencies);
  const o = summarize(ours.latencies);
  const same = split && summarize(split.same.latencies);
  const cross = split && summarize(split.cross.latencies);
  const result = {
    pairs: PAIRS,
    rate_per_s: RATE,
    seconds: SECONDS,
    rounds: ROUNDS,
    p50_ms: round(o.p50, 3),
    p99_ms: round(o.p99, 3),
    max_ms: round(o.max, 3),
    lost: ours.sent - ours.received,
    baseline_p50_ms: round(b.p50, 3),
    baseline_p99_ms: round(b.p99, 3),
    baseline_max_ms: round(b.max, 3),
    baseline_lost: base.sent - base.received,
    ratio: round(o.p99 / b.p99),
    // Server CPU (user + system, /proc, 10 ms ticks) per drive over the measured rounds.
    cpu_us_per_drive: round(cpuPerDrive(relay), 1),
    baseline_cpu_us_per_drive: round(cpuPerDrive(bare), 1),
    // Two instances on PostgreSQL + Redis (null when they were not reachable).
    scale_out:
      split && same && cross
        ? {
            same_instance_p50_ms: round(same.p50, 3),
            same_instance_p99_ms: round(same.p99, 3),
            same_instance_lost: split.same.sent - split.same.received,
            cross_instance_p50_ms: round(cross.p50, 3),
            cross_instance_p99_ms: round(cross.p99, 3),
            cross_instance_max_ms: round(cross.max, 3),
            cross_instance_lost: split.cross.sent - split.cross.received,
            redis_hop_p50_ms: round(cross.p50 - same.p50, 3),
            redis_hop_p99_ms: round(cross.p99 - same.p99, 3),
          }
        : null,
  };
  printTable(`controller → car, ${PAIRS} pairs × ${RATE} drives/s for ${SECONDS} s, ${ROUNDS} rounds each`, [
    {
      path: 'bare ws forwarder',
      'p50 ms': result.baseline_p50_ms,
      'p99 ms': result.baseline_p99_ms,
      'max ms': result.baseline_max_ms,
      'CPU µs/drive': result.baseline_cpu_us_per_drive,
      sent: base.sent,
      lost: result.baseline_lost,
    },
    {
      path: 'telerace relay',
      'p50 ms': result.p50_ms,
      'p99 ms': result.p99_ms,
      'max ms': result.max_ms,
      'CPU µs/drive': result.cpu_us_per_drive,
      sent: ours.sent,
      lost: result.lost,
    },
  ]);
  console.info(`p99 ratio telerace/baseline: ${result.ratio} (${ROUNDS} alternating rounds per path)`);
  if (split && result.scale_out) {
    printTable('two instances on PostgreSQL + Redis, same load', [
      {
        path: 'driver and car on A',
        'p50 ms': result.scale_out.same_instance_p50_ms,
        'p99 ms': result.scale_out.same_instance_p99_ms,
        sent: split.same.sent,
        lost: result.scale_out.same_instance_lost,
      },
      {
        path: 'driver on A, car on B (Redis)',
        'p50 ms': result.scale_out.cross_instance_p50_ms,
        'p99 ms': result.scale_out.cross_instance_p99_ms,
        sent: split.cross.sent,
        lost: result.scale_out.cross_instance_lost,
      },
    ]);
    console.info(`Redis hop: +${result.scale_out.redis_hop_p99_ms} ms at p99 (target cross p99 ≤ 5 ms)`);
  }
  console.info(`written: ${writeResult('relay', result)}`);
}
