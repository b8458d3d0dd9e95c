/**
 * `npm run bench -- relay-under-load`: does web traffic delay the steering of a car someone is
 * driving? One controller drives one car at 50 Hz through the real relay; the car measures each
 * drive's delay and the drives that never arrived — first idle, then while 50 connections read
 * `GET /api/cars` as fast as they can. That load runs in ANOTHER PROCESS (the autocannon CLI), so
 * its client work never sits on this bench's event loop. On the embedded PGlite and on PostgreSQL.
 * Baseline, same run, same measurement: a bare Fastify answering the same car-list bytes with a
 * bare `ws` forwarder on the same server (one process, like Telerace), the load on its bare route.
 * Issue 11's target: p99 ≤ 5 ms under load, 0 lost (reported here, not asserted).
 * Options (environment): RELAY_RATE (50 per second), RELAY_SECONDS (10), BENCH_CONNECTIONS (50), BENCH_CARS (10),
 * RELAY_LOAD_PATH (`/api/cars`; a page such as `/leaderboards` is read as a signed-out viewer
 * does: a page the server draws, issue 45).
 */
import { type CapturedRoute, captureRoute, startBareRoutes } from './lib/bare-route.js';
import { DATABASES, openDatabase } from './lib/databases.js';
import { type HttpMeasure, startHttpLoadProcess } from './lib/http-load.js';
import { type Running, startTelerace } from './lib/processes.js';
import {
  closePairs,
  type DriveMeasure,
  drive,
  forwarderPairs,
  type Pair,
  teleracePair,
} from './lib/relay-clients.js';
import { printTable, type Row, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { BENCH_SERVER_ENV, createFleet, logInAdmin, signUpMember } from './lib/telerace-api.js';

const RATE = Number(process.env.RELAY_RATE ?? 50);
const SECONDS = Number(process.env.RELAY_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CARS = Number(process.env.BENCH_CARS ?? 10);
/** Time for the load process to start and reach full speed before the drives are timed. */
const LOAD_RAMP_S = 1;
/** What the load reads: the car list by default, or a page (RELAY_LOAD_PATH). */
const CARS_PATH = process.env.RELAY_LOAD_PATH ?? '/api/cars';
const LOAD_IS_PAGE = !CARS_PATH.startsWith('/api/');

interface Phase {
  drives: DriveMeasure;
  load?: HttpMeasure;
}

interface Target {
  name: string;
  idle: Phase;
  loaded: Phase;
}

/** Drives the pair idle, then again under HTTP load on `loadUrl`; closes the pair afterwards. */
async function idleThenLoaded(pair: Pair, loadUrl: string, headers: Record<string, string>) {
  try {
    const idle = { drives: await drive([pair], RATE, SECONDS) };
    const load = startHttpLoadProcess({
      url: loadUrl,
      headers,
      connections: CONNECTIONS,
      seconds: SECONDS + LOAD_RAMP_S + 1,
    });
    await new Promise((r) => setTimeout(r, LOAD_RAMP_S * 1000));
    const drives = await drive([pair], RATE, SECONDS);
    return { idle, loaded: { drives, load: await load.done } };
  } finally {
    closePairs([pair]);
  }
}

/** The real server on one database; also returns the car list it answered, for the baseline. */
async function onTelerace(
  kind: (typeof DATABASES)[number],
): Promise<{ target: Target; cars: CapturedRoute } | null> {
  const database = await openDatabase(kind);
  if (!database) return null;
  let telerace: Running | undefined;
  try {
    telerace = await startTelerace({ ...BENCH_SERVER_ENV, ...database.env });
    const base = telerace.url;
    const admin = await logInAdmin(base);
    await createFleet(base, admin, CARS - 1);
    const pair = await teleracePair(base, admin, await signUpMember(base), `Driven ${kind}`);
    // The load is other signed-in visitors polling the car list (or signed-out viewers of a page).
    const headers: Record<string, string> = LOAD_IS_PAGE
      ? {}
      : { authorization: `Bearer ${await signUpMember(base)}` };
    const cars = await captureRoute(base, CARS_PATH, headers);
    const phases = await idleThenLoaded(pair, `${base}${CARS_PATH}`, headers);
    return { target: { name: `telerace relay (${kind})`, ...phases }, cars };
  } finally {
    await telerace?.stop();
    await database.drop();
  }
}

async function onBaseline(cars: CapturedRoute): Promise<Target> {
  const bare = await startBareRoutes([cars], { forwarder: true });
  try {
    const [pair] = await forwarderPairs(bare.url, 1);
    if (!pair) throw new Error('no forwarder pair');
    const phases = await idleThenLoaded(pair, `${bare.url}${CARS_PATH}`, {});
    return { name: 'bare ws forwarder + bare Fastify route, one process', ...phases };
  } finally {
    await bare.stop();
  }
}

function phaseResult(phase: Phase) {
  const s = summarize(phase.drives.latencies);
  return {
    p50_ms: round(s.p50, 3),
    p99_ms: round(s.p99, 3),
    max_ms: round(s.max, 3),
    sent: phase.drives.sent,
    lost: phase.drives.sent - phase.drives.received,
    ...(phase.load
      ? { load_rps: round(phase.load.rps), load_p99_ms: phase.load.p99, load_errors: phase.load.errors }
      : {}),
  };
}

function rows(target: Target): Row[] {
  return (['idle', 'loaded'] as const).map((name) => {
    const r = phaseResult(target[name]);
    return {
      path: target.name,
      phase: name === 'idle' ? 'idle' : `${CONNECTIONS} conns on ${CARS_PATH}`,
      'p50 ms': r.p50_ms,
      'p99 ms': r.p99_ms,
      'max ms': r.max_ms,
      sent: r.sent,
      lost: r.lost,
      'load req/s': r.load_rps ?? '',
      'load errors': r.load_errors ?? '',
    };
  });
}

export async function relayUnderLoadBench(): Promise<void> {
  const targets: Target[] = [];
  let cars: CapturedRoute | undefined;
  const result: Record<string, unknown> = {
    rate_per_s: RATE,
    seconds: SECONDS,
    connections: CONNECTIONS,
    cars: CARS,
  };
  for (const kind of DATABASES) {
    const measured = await onTelerace(kind);
    if (!measured) {
      result[kind] = 'skipped: database unavailable';
      continue;
    }
    targets.push(measured.target);
    cars ??= measured.cars;
    result[kind] = { idle: phaseResult(measured.target.idle), loaded: phaseResult(measured.target.loaded) };
  }
  if (cars) {
    const baseline = await onBaseline(cars);
    targets.unshift(baseline);
    result.baseline = {
      what: baseline.name,
      idle: phaseResult(baseline.idle),
      loaded: phaseResult(baseline.loaded),
    };
  }
  printTable(
    `1 car at ${RATE} drives/s, ${SECONDS} s idle then ${SECONDS} s under HTTP load from another process (target p99 ≤ 5 ms under load, 0 lost)`,
    targets.flatMap(rows),
  );
  console.info(`written: ${writeResult('relay-under-load', result)}`);
}
