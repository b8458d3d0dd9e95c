/**
 * `npm run bench -- lossy`: drive commands over a mobile link (issues 27 and 42). A driver sends 50 drives
 * a second through an impaired link (lib/impairment.ts: 80 ms RTT, up to 10 ms jitter, 0 / 1 / 2
 * / 5 % loss each way) to the real server, whose car (a protocol client in this process, on a
 * good link: the car is on the venue's network) records when each command arrives. Per path and
 * loss rate: the command delay p50/p99 (sent → arrived at the car), commands never arrived, and
 * the share of the time the car spent on a command older than 100 ms (its current command's age,
 * integrated between arrivals: what "stale" costs a driver). The paths:
 * - `websocket`: the controller socket over an impaired TCP link (head-of-line blocking);
 * - `datachannel`: the control DataChannel (unordered, no retransmits) over an impaired UDP link,
 *   when the server offers it (lib/drive-paths.ts).
 * Baseline in the same run: each path at 0 % loss; the goal is DataChannel p99 ≤ RTT/2 + 30 ms at
 * 2 % loss.
 *
 * The whole drive path (issue 42): the same driver on its DataChannel, and the real car agent
 * (lib/agent-on-link.ts) on a link of its own, each leg 80 ms RTT and up to 10 ms jitter, the loss
 * on the car's leg only or on both legs. From the driver's input to the agent applying it (the
 * newest of its socket and its drive channel), with the agent's socket alone (before issue 42)
 * beside it; plus the agent's deadman trips. Goal at 2 % loss on both legs: p99 ≤ RTT_total/2 +
 * 40 ms and no deadman trip; at 5 %: no deadman trip.
 * Options (environment): LOSSY_SECONDS (20 per row), LOSSY_RATE (50 per second), LOSSY_TABLES
 * (`driver,whole`: which tables).
 */
import { performance } from 'node:perf_hooks';
import type WebSocket from 'ws';
import { startAgentOnLink } from './lib/agent-on-link.js';
import { DRIVE_PATHS, type DrivePath, type DriverOnLink } from './lib/drive-paths.js';
import type { Impairment } from './lib/impairment.js';
import { startTelerace } from './lib/processes.js';
import { connectCar } from './lib/relay-clients.js';
import { printTable, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { BENCH_SERVER_ENV, createCar, logInAdmin, signUpMember } from './lib/telerace-api.js';

const SECONDS = Number(process.env.LOSSY_SECONDS ?? 20);
const RATE = Number(process.env.LOSSY_RATE ?? 50);
const ONE_WAY_MS = 40;
const JITTER_MS = 10;
const LOSS_RATES = [0, 0.01, 0.02, 0.05];
const TABLES = (process.env.LOSSY_TABLES ?? 'driver,whole').split(',');
/** A command older than this is stale: the car does what the driver wanted a tenth of a second ago. */
const STALE_MS = 100;

interface Arrival {
  sentAt: number;
  arrivedAt: number;
}

/** The columns every row has: delays, commands lost, stale share (delayColumns). */
type DelayColumns = ReturnType<typeof delayColumns>;

interface RowResult extends DelayColumns {
  path: string;
  loss_percent: number;
  /** The path opened over the impaired link (the DataChannel's handshake may need a clean one). */
  opened_over_link: boolean;
}

/**
 * The share of [first arrival, end] during which the car's current command (the newest arrived;
 * an older one arriving late is ignored, as the sequence check does) was older than STALE_MS.
 */
function staleShare(arrivals: Arrival[], end: number): number {
  const applied: Arrival[] = [];
  for (const arrival of [...arrivals].sort((a, b) => a.arrivedAt - b.arrivedAt)) {
    const current = applied.at(-1);
    if (!current || arrival.sentAt > current.sentAt) applied.push(arrival);
  }
  const first = applied[0];
  if (!first) return 1;
  let stale = 0;
  applied.forEach((arrival, i) => {
    const until = applied[i + 1]?.arrivedAt ?? end;
    stale += Math.max(0, until - Math.max(arrival.arrivedAt, arrival.sentAt + STALE_MS));
  });
  return stale / (end - first.arrivedAt);
}

/** What RATE drives a second for SECONDS did: each one's delay (sent → arrived) and the stale share. */
interface Drove {
  arrivals: Arrival[];
  sent: number;
  end: number;
}

/**
 * Sends RATE drives a second for SECONDS on `driver`; `arrived(listener)` hands the listener the
 * throttle of each command as it reaches the car. Each command has a distinct throttle, so that the
 * car tells a new one from a repetition (the server's heartbeat, the other path's copy).
 */
async function drive(
  driver: DriverOnLink,
  arrived: (listener: (throttle: number) => void) => void,
): Promise<Drove> {
  const sentAt = new Map<number, number>();
  const arrivals: Arrival[] = [];
  arrived((throttle) => {
    const at = sentAt.get(throttle);
    if (at === undefined) return; // a repetition of a command already counted
    sentAt.delete(throttle);
    arrivals.push({ sentAt: at, arrivedAt: performance.now() });
  });
  const ticks = RATE * SECONDS;
  const start = performance.now();
  for (let tick = 0; tick < ticks; tick++) {
    const wait = start + (tick * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const throttle = (tick + 1) / (ticks + 2);
    sentAt.set(throttle, performance.now());
    driver.drive(throttle);
  }
  const end = performance.now();
  // Late retransmissions still count as arrivals (delay), not as lost.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return { arrivals, sent: ticks, end };
}

/** The delays, losses and stale share of what `drive` recorded. */
function delayColumns({ arrivals, sent, end }: Drove) {
  const delays = summarize(arrivals.map((a) => a.arrivedAt - a.sentAt));
  return {
    p50_ms: round(delays.p50, 1),
    p99_ms: round(delays.p99, 1),
    max_ms: round(delays.max, 1),
    sent,
    lost: sent - arrivals.length,
    stale_percent: round(staleShare(arrivals, end) * 100, 1),
  };
}

/** Sends RATE drives a second for SECONDS over `path` and records their arrival at `car`. */
async function measure(
  path: DrivePath,
  base: string,
  admin: string,
  member: string,
  link: Impairment,
): Promise<RowResult> {
  const created = await createCar(base, admin, `Lossy ${path.name} ${link.loss}`);
  const car: WebSocket = await connectCar(base, created);
  const driver = await path.open({ base, admin, member, carId: created.id, link });
  const drove = await drive(driver, (listener) =>
    car.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type?: string; throttle?: number };
      if (message.type === 'drive' && message.throttle !== undefined) listener(message.throttle);
    }),
  );
  driver.close();
  car.close();
  return {
    path: path.name,
    loss_percent: link.loss * 100,
    ...delayColumns(drove),
    opened_over_link: driver.openedOverLink ?? true,
  };
}

type WholePathRow = DelayColumns & {
  car_link: string;
  lossy_legs: string;
  loss_percent: number;
  deadman_trips: number;
  opened_over_link: string;
};

/**
 * The whole path: the driver's DataChannel on its leg, the real agent on the car's leg (its socket
 * alone, or with its drive channel), `loss` on the car's leg or on both.
 */
async function measureWholePath(
  base: string,
  admin: string,
  member: string,
  { channel, bothLegs, loss, seed }: { channel: boolean; bothLegs: boolean; loss: number; seed: number },
): Promise<WholePathRow> {
  const lossy = { oneWayMs: ONE_WAY_MS, jitterMs: JITTER_MS, loss };
  const clean = { ...lossy, loss: 0 };
  const created = await createCar(base, admin, `Whole path ${channel ? 'channel' : 'socket'} ${loss}`);
  const car = await startAgentOnLink(base, created, lossy, { channel, seed });
  const datachannel = DRIVE_PATHS.find((path) => path.name === 'datachannel');
  if (!datachannel) throw new Error('no datachannel path');
  const driver = await datachannel.open({
    base,
    admin,
    member,
    carId: created.id,
    link: bothLegs ? lossy : clean,
  });
  const tripsBefore = car.deadmanTrips();
  const drove = await drive(driver, (listener) => car.onApplied(listener));
  const deadmanTrips = car.deadmanTrips() - tripsBefore;
  driver.close();
  await car.close();
  return {
    car_link: channel ? 'socket + channel' : 'socket only',
    lossy_legs: bothLegs ? 'both' : 'car',
    loss_percent: loss * 100,
    ...delayColumns(drove),
    deadman_trips: deadmanTrips,
    opened_over_link: (driver.openedOverLink ?? true) && car.openedOverLink ? 'yes' : 'no',
  };
}

export async function lossyBench(): Promise<void> {
  const telerace = await startTelerace(BENCH_SERVER_ENV);
  const rows: RowResult[] = [];
  const wholePath: WholePathRow[] = [];
  try {
    const admin = await logInAdmin(telerace.url);
    const member = await signUpMember(telerace.url, '10.79.0.1');
    for (const path of TABLES.includes('driver') ? DRIVE_PATHS : []) {
      if (!(await path.available(telerace.url))) continue;
      for (const loss of LOSS_RATES) {
        const link = { oneWayMs: ONE_WAY_MS, jitterMs: JITTER_MS, loss };
        rows.push(await measure(path, telerace.url, admin, member, link));
        console.info(`${path.name} at ${loss * 100} % loss done`);
      }
    }
    if (TABLES.includes('whole')) {
      let seed = 100;
      for (const bothLegs of [false, true])
        for (const loss of LOSS_RATES)
          for (const channel of [false, true]) {
            seed += 10;
            wholePath.push(
              await measureWholePath(telerace.url, admin, member, { channel, bothLegs, loss, seed }),
            );
            const row = wholePath.at(-1);
            console.info(`whole path: ${row?.car_link}, ${row?.lossy_legs} at ${loss * 100} % loss done`);
          }
    }
  } finally {
    await telerace.stop();
  }
  const rttMs = 2 * ONE_WAY_MS;
  const goalMs = rttMs / 2 + 30;
  const wholeGoalMs = (2 * rttMs) / 2 + 40;
  if (rows.length > 0) {
    const at2 = (name: string) => rows.find((row) => row.path === name && row.loss_percent === 2);
    printTable(
      `drive commands over an impaired link: ${rttMs} ms RTT + up to ${JITTER_MS} ms jitter each way, ${RATE}/s for ${SECONDS} s per row`,
      rows.map((row) => ({ ...row, opened_over_link: row.opened_over_link ? 'yes' : 'no' })),
    );
    const datachannel = at2('datachannel');
    console.info(
      datachannel
        ? `goal: datachannel p99 at 2 % loss ≤ ${goalMs} ms: ${datachannel.p99_ms} ms (${datachannel.p99_ms <= goalMs ? 'met' : 'NOT met'}); websocket: ${at2('websocket')?.p99_ms} ms`
        : 'the server offered no DataChannel: the websocket path only',
    );
  }
  if (wholePath.length > 0) {
    printTable(
      `the whole drive path, driver → server → car: each leg ${rttMs} ms RTT + up to ${JITTER_MS} ms jitter each way, the loss on the car's leg or on both, ${RATE}/s for ${SECONDS} s per row`,
      wholePath,
    );
    const both = (loss: number) =>
      wholePath.find(
        (row) =>
          row.car_link === 'socket + channel' && row.lossy_legs === 'both' && row.loss_percent === loss,
      );
    const at2 = both(2);
    const at5 = both(5);
    console.info(
      `goal at 2 % on both legs: p99 ≤ ${wholeGoalMs} ms and no deadman trip: ${at2?.p99_ms} ms, ${at2?.deadman_trips} trips (${at2 && at2.p99_ms <= wholeGoalMs && at2.deadman_trips === 0 ? 'met' : 'NOT met'}); at 5 %: ${at5?.deadman_trips} trips (${at5?.deadman_trips === 0 ? 'met' : 'NOT met'})`,
    );
  }
  writeResult('lossy', {
    rtt_ms: rttMs,
    jitter_ms: JITTER_MS,
    rate_per_s: RATE,
    seconds_per_row: SECONDS,
    stale_after_ms: STALE_MS,
    goal_p99_ms_at_2_percent: goalMs,
    rows,
    whole_path_goal_p99_ms_at_2_percent_both_legs: wholeGoalMs,
    whole_path_rows: wholePath,
  });
}
