/**
 * `npm run bench -- car-link` (issue 42): does a driven car stop by itself on a bad network? A
 * real car agent process (simulated drive, no camera) in a network namespace of its own
 * (lib/car-netns.ts: the kernel's TCP, nftables loss each way, blackouts), the real server on this
 * machine, and a driver on a good link sending 50 drives a second. Per car link — the socket alone
 * (`--drive-channel off`, before issue 42) and the socket with the drive channel — and per
 * condition (0 / 5 / 10 / 15 % loss each way; 300 ms blackouts every 2 s, shorter than the 500 ms
 * deadman, as a Wi-Fi roam or a 4G handover): how often the car went to neutral on its own
 * deadman, and how often its socket dropped. The goal: no deadman trip while commands flow, at
 * any of these losses and through blackouts shorter than the deadman. Root only.
 * Options (environment): CAR_LINK_SECONDS (30 per row).
 */
import type WebSocket from 'ws';
import { AgentProcess, agentUnbuilt } from './lib/agent-process.js';
import { type CarNetns, createCarNetns, netnsUnavailable } from './lib/car-netns.js';
import { controllerSocketUrl } from './lib/drive-paths.js';
import { startTelerace } from './lib/processes.js';
import { openSocket } from './lib/relay-clients.js';
import { printTable, writeResult } from './lib/report.js';
import {
  BENCH_SERVER_ENV,
  createCar,
  logInAdmin,
  signUpMember,
  takeCarWithCode,
} from './lib/telerace-api.js';

const SECONDS = Number(process.env.CAR_LINK_SECONDS ?? 30);
const DRIVES_PER_SECOND = 50;
const BLACKOUT = { ms: 300, everyMs: 2_000 };

interface Condition {
  name: string;
  loss: number;
  blackouts: boolean;
}

const ALL_CONDITIONS: Condition[] = [
  { name: '0 % loss', loss: 0, blackouts: false },
  { name: '5 % loss', loss: 0.05, blackouts: false },
  { name: '10 % loss', loss: 0.1, blackouts: false },
  { name: '15 % loss', loss: 0.15, blackouts: false },
  { name: `${BLACKOUT.ms} ms blackouts`, loss: 0, blackouts: true },
];

/** CAR_LINK_CONDITIONS=blackouts,15: only the conditions whose names contain one of these. */
const CONDITIONS = ALL_CONDITIONS.filter(
  (condition) =>
    !process.env.CAR_LINK_CONDITIONS ||
    process.env.CAR_LINK_CONDITIONS.split(',').some((part) => condition.name.includes(part)),
);

type Row = {
  car_link: string;
  condition: string;
  seconds: number;
  deadman_trips: number;
  socket_drops: number;
  channel_losses: number;
  deadman_trips_per_minute: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measureLink(
  netns: CarNetns,
  base: string,
  admin: string,
  member: string,
  channel: boolean,
): Promise<Row[]> {
  const port = new URL(base).port;
  const car = await createCar(base, admin, `Car link ${channel ? 'channel' : 'socket'}`);
  const agent = new AgentProcess(netns, `http://${netns.hostIp}:${port}`, car, {
    args: ['--drive', 'sim', '--camera', 'none', '--drive-channel', channel ? 'on' : 'off'],
    env: { PATH: process.env.PATH ?? '' },
  });
  const rows: Row[] = [];
  let driver: WebSocket | undefined;
  let repeat: NodeJS.Timeout | undefined;
  try {
    const ready = channel ? agent.next(/drive channel open/) : agent.next(/welcomed as car/);
    await ready;
    const { controlToken } = await takeCarWithCode(base, admin, car.id, member);
    driver = await openSocket(controllerSocketUrl(base, car.id, member, controlToken), { origin: base });
    const socket = driver;
    repeat = setInterval(
      () => socket.send(JSON.stringify({ type: 'drive', throttle: 0.5, steer: 0 })),
      1000 / DRIVES_PER_SECOND,
    );
    await sleep(1_000);
    for (const condition of CONDITIONS) {
      const before = { trips: agent.deadmanTrips, drops: agent.socketDrops, losses: agent.channelLosses };
      netns.setLoss(condition.loss);
      const startedAt = performance.now();
      while (performance.now() - startedAt < SECONDS * 1000) {
        if (!condition.blackouts) {
          await sleep(250);
          continue;
        }
        await sleep(BLACKOUT.everyMs - BLACKOUT.ms);
        netns.blackout(true);
        await sleep(BLACKOUT.ms);
        netns.blackout(false);
      }
      const seconds = (performance.now() - startedAt) / 1000;
      netns.setLoss(0);
      const trips = agent.deadmanTrips - before.trips;
      rows.push({
        car_link: channel ? 'socket + drive channel' : 'socket only (TCP)',
        condition: condition.name,
        seconds: Math.round(seconds),
        deadman_trips: trips,
        socket_drops: agent.socketDrops - before.drops,
        channel_losses: agent.channelLosses - before.losses,
        deadman_trips_per_minute: Math.round((trips / seconds) * 60 * 10) / 10,
      });
      console.info(`${rows.at(-1)?.car_link}, ${condition.name}: ${trips} deadman trips`);
      // A clean link between rows: a socket that dropped comes back (and its channel opens again).
      await sleep(3_000);
    }
  } finally {
    clearInterval(repeat);
    driver?.close();
    await agent.stop();
    if (process.env.CAR_LINK_VERBOSE) console.info(agent.notable.join('\n'));
  }
  return rows;
}

export async function carLinkBench(): Promise<void> {
  const unavailable = netnsUnavailable();
  if (unavailable) {
    console.error(`car-link bench skipped: it ${unavailable}`);
    return;
  }
  const unbuilt = agentUnbuilt();
  if (unbuilt) throw new Error(unbuilt);
  const netns = createCarNetns();
  // The car reaches the server on the pair's address, not only on loopback.
  const telerace = await startTelerace({ ...BENCH_SERVER_ENV, HOST: '0.0.0.0' }).catch((error) => {
    netns.close();
    throw error;
  });
  const rows: Row[] = [];
  try {
    const admin = await logInAdmin(telerace.url);
    const member = await signUpMember(telerace.url, '10.79.0.2');
    for (const channel of [false, true])
      rows.push(...(await measureLink(netns, telerace.url, admin, member, channel)));
  } finally {
    await telerace.stop();
    netns.close();
  }
  printTable(
    `a driven car on a bad network: its own namespace (kernel TCP, nftables loss each way), ${DRIVES_PER_SECOND} drives/s, ${SECONDS} s per row`,
    rows,
  );
  const channelTrips = rows
    .filter((row) => row.car_link.includes('channel'))
    .reduce((n, row) => n + row.deadman_trips, 0);
  console.info(
    `goal: no deadman trip with the drive channel: ${channelTrips === 0 ? 'met' : `NOT met (${channelTrips})`}`,
  );
  writeResult('car-link', {
    drives_per_second: DRIVES_PER_SECOND,
    seconds_per_row: SECONDS,
    blackout_ms: BLACKOUT.ms,
    blackout_every_ms: BLACKOUT.everyMs,
    rows,
  });
}
