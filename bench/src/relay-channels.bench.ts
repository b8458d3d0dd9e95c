/**
 * `npm run bench -- relay-channels`: what drivers on the drive channel (issue 27) cost the relay.
 * Five drivers over the control socket drive their cars at 50 drives/s for 10 s (after a 3 s
 * warm-up) through the real server, alone, then beside N drivers on DataChannels (werift peers
 * in this process, as a browser's) each sending R drives/s: the socket drivers' p99 beside their
 * own baseline from the same run, and the server's CPU per channel drive (from /proc, all its
 * threads; the socket drivers' share taken off). The channel's DTLS and SCTP run on the server's one event loop, the
 * relay's; this bench says what that costs every other car.
 * Options (environment): CHANNEL_DRIVERS (10), CHANNEL_RATE (20 per second).
 */
import { DRIVE_PATHS, type DriverOnLink } from './lib/drive-paths.js';
import { cpuMs } from './lib/proc-stats.js';
import { startTelerace } from './lib/processes.js';
import { closePairs, connectCar, drive, type Pair, teleracePair } from './lib/relay-clients.js';
import { printTable, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { BENCH_SERVER_ENV, createCar, logInAdmin, signUpMember } from './lib/telerace-api.js';

const DRIVERS = Number(process.env.CHANNEL_DRIVERS ?? 10);
const RATE = Number(process.env.CHANNEL_RATE ?? 20);
const SOCKET_RATE = 50;
/** Socket drivers, each on its car: 2,500 drives in 10 s, so the p99 is not a handful of samples. */
const SOCKET_DRIVERS = 5;
const SECONDS = 10;

/** The socket driver's drives for SECONDS, with the server's CPU time meanwhile. */
async function measure(pairs: Pair[], pid: number) {
  const before = cpuMs(pid);
  const measured = await drive(pairs, SOCKET_RATE, SECONDS);
  return { ...measured, serverCpuMs: cpuMs(pid) - before };
}

/** N drivers of their own cars on DataChannels, over a clean loopback link. */
async function channelDrivers(base: string, admin: string): Promise<DriverOnLink[]> {
  const path = DRIVE_PATHS.find((candidate) => candidate.name === 'datachannel');
  if (!path) throw new Error('no datachannel drive path');
  const drivers: DriverOnLink[] = [];
  for (let i = 0; i < DRIVERS; i++) {
    const car = await createCar(base, admin, `Channel ${i + 1}`);
    await connectCar(base, car);
    const member = await signUpMember(base, `10.79.0.${i + 1}`);
    const link = { oneWayMs: 0, jitterMs: 0, loss: 0 };
    drivers.push(await path.open({ base, admin, member, carId: car.id, link }));
  }
  return drivers;
}

export async function relayChannelsBench(): Promise<void> {
  const telerace = await startTelerace(BENCH_SERVER_ENV);
  const pid = telerace.child.pid;
  if (pid === undefined) throw new Error('the server has no pid');
  const drivers: DriverOnLink[] = [];
  let driving: NodeJS.Timeout | undefined;
  try {
    const admin = await logInAdmin(telerace.url);
    const pairs: Pair[] = [];
    for (let i = 0; i < SOCKET_DRIVERS; i++) {
      const ip = `10.78.0.${i + 1}`;
      const member = await signUpMember(telerace.url, ip);
      pairs.push(await teleracePair(telerace.url, admin, member, `Socket driver ${i + 1}`, ip));
    }
    // Warm-up, and the first minutes of a fresh server's background work (its first session
    // sweeps, the JIT), not measured.
    await drive(pairs, SOCKET_RATE, 10);
    const alone = await measure(pairs, pid);
    drivers.push(...(await channelDrivers(telerace.url, admin)));
    let tick = 0;
    driving = setInterval(() => {
      tick += 1;
      for (const driver of drivers) driver.drive(((tick % 100) + 1) / 101);
    }, 1000 / RATE);
    // The channels' first drives (werift's JIT) are not measured.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const beside = await measure(pairs, pid);
    closePairs(pairs);

    const a = summarize(alone.latencies);
    const b = summarize(beside.latencies);
    const channelDrives = DRIVERS * RATE * SECONDS;
    const result = {
      channel_drivers: DRIVERS,
      channel_rate_per_s: RATE,
      seconds: SECONDS,
      p50_ms: round(b.p50, 3),
      p99_ms: round(b.p99, 3),
      lost: beside.sent - beside.received,
      baseline_p50_ms: round(a.p50, 3),
      baseline_p99_ms: round(a.p99, 3),
      baseline_lost: alone.sent - alone.received,
      ratio: round(b.p99 / a.p99),
      server_cpu_share_alone: round(alone.serverCpuMs / (SECONDS * 1000), 3),
      server_cpu_share_beside: round(beside.serverCpuMs / (SECONDS * 1000), 3),
      server_cpu_ms_per_channel_drive: round((beside.serverCpuMs - alone.serverCpuMs) / channelDrives, 3),
      socket_drivers: SOCKET_DRIVERS,
    };
    printTable(
      `${SOCKET_DRIVERS} socket drivers at ${SOCKET_RATE} drives/s, alone and beside ${DRIVERS} channel drivers at ${RATE}/s`,
      [
        {
          'socket drivers': 'alone',
          'p50 ms': result.baseline_p50_ms,
          'p99 ms': result.baseline_p99_ms,
          lost: result.baseline_lost,
          'server CPU': `${Math.round(result.server_cpu_share_alone * 100)} %`,
        },
        {
          'socket drivers': `beside ${DRIVERS} channel drivers`,
          'p50 ms': result.p50_ms,
          'p99 ms': result.p99_ms,
          lost: result.lost,
          'server CPU': `${Math.round(result.server_cpu_share_beside * 100)} %`,
        },
      ],
    );
    console.info(`server CPU per channel drive: ${result.server_cpu_ms_per_channel_drive} ms`);
    writeResult('relay-channels', result);
  } finally {
    clearInterval(driving);
    for (const driver of drivers) driver.close();
    await telerace.stop();
  }
}
