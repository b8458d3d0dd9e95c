/**
 * `npm run soak [-- --minutes 30]`: the whole product under an evening's load for a while, and
 * what would only show after a while (issue 26, point 9). The real built server runs as a child
 * process on the embedded database in a throw-away DATA_DIR, with SIM_CARS=20 (its simulated
 * cars' agents, its own children) and VIDEO=off (20 camera encoders and Janus would take the two
 * cores: `npm run bench -- video` measures video). Against it, at once:
 * - one scripted driver per simulated car, driving at a gamepad's 50 drives a second through the
 *   controller socket, and two probe drivers on cars this run holds, which time each drive from
 *   its send to its arrival on the car (the relay's end-to-end latency);
 * - 2,000 event sockets in two client processes, each doing what the web app's does (a ping every
 *   2 s), with churn: 10 close and 10 open every second;
 * - races back to back through the admin API, laps counted by the simulated cars' own finish
 *   line, and a raffle each race, viewers entering it through the admin's "add entry" call.
 *
 * Every report interval (5 minutes; 1 below a 10-minute run) it prints and keeps: the server's
 * event-loop delay p99 and max over the interval (its /metrics), the relay's p99 (the probes' end
 * to end, and the server's own histogram), the server's heap after a full collection (through its
 * inspector) and resident size, its CPU, open sockets, races run, laps counted, raffle entries.
 *
 * It fails (exit code 1) on: any server log line at error level or above (listed); a lost lap (a
 * crossing a car logged while its race ran that the server did not count, or a counted pass no
 * car made); a lost raffle entry (accepted by the API, missing from the drawn raffle's published
 * record, or refused); heap or resident size grown by 10 % or more from the warm-up sample (at
 * minute 5, or 40 % into runs shorter than 12.5 minutes) to the end. Results: bench/results/soak.json,
 * the server's whole log beside it (soak-server.log).
 *
 * Flags: --minutes (30), --report-minutes, --race-seconds (60: races run to their end time; less:
 * the admin ends them; 20 below a 10-minute run), --cars (20), --sockets (2000), --churn (10 a
 * second), --entries-per-second (2).
 */
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { checkLaps, type LapCheck, sumChecks } from './lib/lap-check.js';
import { MemberSession } from './lib/member-sessions.js';
import { freePort, type Running, startTelerace } from './lib/processes.js';
import { RaceDirector } from './lib/race-director.js';
import { connectCar } from './lib/relay-clients.js';
import { printTable, RESULTS_DIR, type Row, round, writeResult } from './lib/report.js';
import { type DriverCounts, ScriptedDriver } from './lib/scripted-driver.js';
import { ServerLog } from './lib/server-log.js';
import { type MemorySample, type ServerInterval, ServerMeter } from './lib/server-meter.js';
import { type SpectatorInterval, Spectators, spectatorInterval } from './lib/spectators.js';
import { summarize } from './lib/stats.js';
import { api, BENCH_SERVER_ENV, createCar } from './lib/telerace-api.js';

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    'report-minutes': { type: 'string' },
    'race-seconds': { type: 'string' },
    cars: { type: 'string', default: '20' },
    sockets: { type: 'string', default: '2000' },
    churn: { type: 'string', default: '10' },
    'entries-per-second': { type: 'string', default: '2' },
  },
});

function positive(name: string, text: string | undefined, fallback: number): number {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`--${name}: a number ≥ 0 is expected, not ${text}`);
  return value;
}

const MINUTES = positive('minutes', flags.minutes, 30);
const LONG_RUN = MINUTES >= 10;
const REPORT_MINUTES = Math.min(
  MINUTES,
  positive('report-minutes', flags['report-minutes'], LONG_RUN ? 5 : 1),
);
const RACE_SECONDS = positive('race-seconds', flags['race-seconds'], LONG_RUN ? 60 : 20);
/** SIM_CARS allows 1–20. */
const CARS = Math.max(1, Math.min(20, positive('cars', flags.cars, 20)));
const SOCKETS = positive('sockets', flags.sockets, 2000);
const CHURN = positive('churn', flags.churn, 10);
const ENTRIES_PER_S = positive('entries-per-second', flags['entries-per-second'], 2);
/** A gamepad's rate, as the relay benches drive. */
const DRIVE_RATE = 50;
const PROBES = 2;
/** Warm-up: minute 5, or 40 % into a run too short for it (below 12.5 minutes). */
const WARM_UP_MS = Math.min(5 * 60_000, 0.4 * MINUTES * 60_000);
const RUN_MS = MINUTES * 60_000;
const REPORT_MS = REPORT_MINUTES * 60_000;
/** Heap or resident size grown this much from the warm-up sample to the end fails the run. */
const MAX_GROWTH = 0.1;
/** CONTROL_LIMITS.eventSocketsPerMember, and a few spare members so a closing socket never blocks an opening one. */
const SOCKETS_PER_MEMBER = 5;
const SPECTATORS = Math.ceil(SOCKETS / SOCKETS_PER_MEMBER) + Math.max(20, Math.ceil(SOCKETS / 100));
const SPECTATOR_WORKERS = 2;
/** Sign-ups in flight (each costs an argon2 hash, and its log-in another). */
const SIGNUP_CONCURRENCY = 4;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const growth = (from: number, to: number) => round((to - from) / from, 4);

/** Each member calls from an address of their own, so per-address limits see many people. */
const ipOf = (i: number) => `10.90.${Math.floor(i / 250)}.${(i % 250) + 1}`;

async function signUpAll(
  base: string,
  count: number,
  prefix: string,
  firstIp: number,
): Promise<MemberSession[]> {
  const members: MemberSession[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: SIGNUP_CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++)
        members[i] = await MemberSession.signUp(base, `${prefix}${i + 1}`, ipOf(firstIp + i));
    }),
  );
  return members;
}

/** The simulated cars by number ("Sim 1" → its id), once every one of them is online. */
async function simCarsOnline(base: string, admin: MemberSession): Promise<number[]> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    const cars = await api<{ id: number; name: string; status: string }[]>(base, '/admin/cars', {
      token: await admin.fresh(),
    });
    const ids = Array.from(
      { length: CARS },
      (_, i) => cars.find((c) => c.name === `Sim ${i + 1}` && c.status === 'online')?.id,
    );
    if (ids.every((id) => id !== undefined)) return ids as number[];
    await pause(500);
  }
  throw new Error(`the ${CARS} simulated cars were not all online within 120 s`);
}

/** Counts by close code, summed. */
function sumCodes(all: Record<string, number>[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const counts of all) for (const [code, n] of Object.entries(counts)) sum[code] = (sum[code] ?? 0) + n;
  return sum;
}

/** Everything the run started, for the timed part and for stopping it all. */
interface Scene {
  server: Running;
  log: ServerLog;
  meter: ServerMeter;
  /** Why the server stopped during the run, if it did. */
  serverExit: () => string | null;
  drivers: ScriptedDriver[];
  probes: ScriptedDriver[];
  spectators: Spectators | null;
  director: RaceDirector | null;
  tokenRefresh?: NodeJS.Timeout;
  setupS: number;
}

/** The server, its members, the audience, the drivers; each piece added to the scene as it starts. */
async function setUp(scene: Partial<Scene> & { log: ServerLog }): Promise<void> {
  const setupStarted = performance.now();
  const metricsPort = await freePort();
  const inspectPort = await freePort();
  const { log } = scene;
  const server = await startTelerace(
    {
      ...BENCH_SERVER_ENV,
      SIM_CARS: String(CARS),
      VIDEO: 'off',
      // The simulated cars' output (their crossings) is logged at info.
      LOG_LEVEL: 'info',
      METRICS_PORT: String(metricsPort),
    },
    { nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`], onOutput: (out, err) => log.attach(out, err) },
  );
  scene.server = server;
  let exit: string | null = null;
  server.child.once('exit', (code, signal) => {
    exit = `exited (code ${code}, signal ${signal})`;
  });
  scene.serverExit = () => exit;
  const pid = server.child.pid ?? 0;
  scene.meter = new ServerMeter(pid, `http://127.0.0.1:${metricsPort}/metrics`, inspectPort);
  const base = server.url;

  const admin = await MemberSession.admin(base);
  await api(base, '/admin/settings', {
    method: 'PATCH',
    token: admin.token,
    // Races shorter than the shortest length (1 minute) are ended by the admin.
    body: { race_countdown_seconds: 3, race_length_minutes: Math.max(1, Math.ceil(RACE_SECONDS / 60)) },
  });
  const simCars = await simCarsOnline(base, admin);
  const members = await signUpAll(base, CARS + PROBES, 'soakdriver', 0);
  const audience = await signUpAll(base, SPECTATORS, 'soakviewer', CARS + PROBES);
  console.info(
    `soak: server up, ${CARS} cars online, ${members.length + audience.length} members signed up in ${round((performance.now() - setupStarted) / 1000, 1)} s`,
  );

  const spectators = new Spectators(SPECTATOR_WORKERS, audience);
  scene.spectators = spectators;
  const filled = await spectators.fill(base, SOCKETS, CHURN);
  console.info(
    `soak: ${filled.open} event sockets open (${filled.failed} failed${filled.failures.length ? `: ${filled.failures.join('; ')}` : ''})`,
  );
  // New sockets open with each member's token: refreshed before it is 10 minutes old.
  scene.tokenRefresh = setInterval(() => void spectators.refreshTokens().catch(() => undefined), 60_000);

  const member = (i: number) => members[i] as MemberSession;
  scene.drivers = simCars.map(
    (carId, i) => new ScriptedDriver({ base, admin, member: member(i), carId, rate: DRIVE_RATE }),
  );
  scene.probes = [];
  for (let i = 0; i < PROBES; i++) {
    const car = await createCar(base, admin.token, `Probe ${i + 1}`);
    scene.probes.push(
      new ScriptedDriver({
        base,
        admin,
        member: member(CARS + i),
        carId: car.id,
        rate: DRIVE_RATE,
        connectCar: () => connectCar(base, car),
        retake: true,
      }),
    );
  }
  await Promise.all([...scene.drivers, ...scene.probes].map((d) => d.start()));
  scene.director = new RaceDirector({
    base,
    admin,
    drivers: scene.drivers,
    raceSeconds: RACE_SECONDS,
    entriesPerSecond: ENTRIES_PER_S,
  });
  scene.setupS = round((performance.now() - setupStarted) / 1000, 1);
}

type Window = { minute: number } & ServerInterval &
  SpectatorInterval & {
    /** The probes' drives, end to end (ms), and those that never reached the car. */
    relay_p50_ms: number;
    relay_p99_ms: number;
    relay_max_ms: number;
    relay_lost: number;
    /**
     * This run's own event-loop delay (the probes' drives are sent and received here): what of
     * the relay's figure is the client's, not the server's.
     */
    run_loop_p99_ms: number;
    drives_sent: number;
    heap_mb: number;
    rss_mb: number;
    races: number;
    laps: number;
    entries: number;
  };

interface Timed {
  windows: Window[];
  start: MemorySample;
  warmUp: MemorySample;
  end: MemorySample;
  driverCounts: DriverCounts[];
}

/** The timed part: a window closed at each report boundary, the warm-up sample on its own. */
async function runFor(scene: Scene, director: RaceDirector, spectators: Spectators): Promise<Timed> {
  const { meter, drivers, probes } = scene;
  await meter.begin();
  const runLoop = monitorEventLoopDelay({ resolution: 10 });
  runLoop.enable();
  const started = performance.now();
  const start = await meter.memory();
  const racing = director.run();
  let raceFailure: Error | null = null;
  racing.catch((error: Error) => {
    raceFailure = error;
  });
  const windows: Window[] = [];
  const driverCounts: DriverCounts[] = [];
  let warmUp: MemorySample | null = null;
  let end: MemorySample | null = null;
  let lastAudience = await spectators.count();
  let lastAt = 0;
  const boundaries = Array.from({ length: Math.ceil(RUN_MS / REPORT_MS) }, (_, k) =>
    Math.min(RUN_MS, (k + 1) * REPORT_MS),
  );
  for (const at of [...new Set([...boundaries, WARM_UP_MS])].sort((a, b) => a - b)) {
    while (performance.now() - started < at) {
      const exit = scene.serverExit();
      if (exit) throw new Error(`the server ${exit} during the run`);
      if (raceFailure) throw raceFailure;
      await pause(Math.min(1000, at - (performance.now() - started)));
    }
    if (!boundaries.includes(at)) {
      warmUp = await meter.memory();
      continue;
    }
    const { server, memory } = await meter.interval();
    const runLoopP99 = runLoop.percentile(99) / 1e6;
    runLoop.reset();
    if (at === WARM_UP_MS) warmUp = memory;
    if (at === RUN_MS) end = memory;
    const probeCounts = probes.map((p) => p.takeCounts());
    const counts = [...probeCounts, ...drivers.map((d) => d.takeCounts())];
    driverCounts.push(...counts);
    const relay = summarize(probeCounts.flatMap((c) => c.latencies));
    const audience = await spectators.count();
    const window: Window = {
      minute: round(at / 60_000, 2),
      ...server,
      relay_p50_ms: round(relay.p50, 3),
      relay_p99_ms: round(relay.p99, 3),
      relay_max_ms: round(relay.max, 3),
      relay_lost: probeCounts.reduce((n, c) => n + c.lost, 0),
      run_loop_p99_ms: round(runLoopP99, 1),
      drives_sent: counts.reduce((n, c) => n + c.sent, 0),
      heap_mb: memory.heap_mb,
      rss_mb: memory.rss_mb,
      ...spectatorInterval(audience, lastAudience, (at - lastAt) / 1000),
      races: director.races.length,
      laps: director.lapsCounted,
      entries: director.entriesAccepted,
    };
    lastAudience = audience;
    lastAt = at;
    windows.push(window);
    console.info(
      `soak ${window.minute} min: event loop p99 ${window.eventloop_p99_ms} ms, relay p99 ${window.relay_p99_ms} ms, heap ${window.heap_mb} MB, RSS ${window.rss_mb} MB, CPU ${window.server_cpu_percent} %, ${window.event_sockets} event sockets, ${window.races} races, ${window.laps} laps, ${window.entries} entries`,
    );
  }
  runLoop.disable();
  // The race under way is ended by the admin and its raffle drawn.
  director.stop();
  await racing;
  driverCounts.push(...[...drivers, ...probes].map((d) => d.takeCounts()));
  if (!warmUp || !end) throw new Error('the warm-up or the end sample is missing');
  return { windows, start, warmUp, end, driverCounts };
}

/** Stops what the scene started, the server last (its log is then complete). */
async function tearDown(scene: Partial<Scene>): Promise<void> {
  clearInterval(scene.tokenRefresh);
  scene.director?.stop();
  for (const driver of [...(scene.drivers ?? []), ...(scene.probes ?? [])]) driver.stop();
  await scene.spectators?.stop();
  scene.spectators = null;
  const child = scene.server?.child;
  if (child && child.exitCode === null && child.signalCode === null) {
    // The last crossings and answers reach the log first.
    await pause(1000);
    await scene.server?.stop();
  }
  if (child) await scene.log?.done();
}

/** The run's checks: what it finds wrong, each a reason to fail. */
function verdict(log: ServerLog, director: RaceDirector, timed: Timed) {
  const laps: LapCheck = sumChecks(
    director.races.map((race) => checkLaps(race, (carId) => log.crossings.get(carId) ?? [])),
  );
  const raffles = director.raffles.map((r) => {
    const recorded = new Set(r.recorded ?? []);
    const accepted = new Set(r.accepted);
    return {
      raffle_id: r.raffleId,
      accepted: r.accepted.length,
      recorded: r.recorded?.length ?? null,
      missing: r.accepted.filter((e) => !recorded.has(e)),
      unexpected: (r.recorded ?? []).filter((e) => !accepted.has(e)),
      refused: r.failed,
    };
  });
  const lostEntries = raffles.flatMap((r) => [...r.missing, ...r.refused]);
  const unexpectedEntries = raffles.flatMap((r) => r.unexpected);
  const heapGrowth = growth(timed.warmUp.heap_mb, timed.end.heap_mb);
  const rssGrowth = growth(timed.warmUp.rss_mb, timed.end.rss_mb);
  const failures = [
    ...(log.errors.length > 0 ? [`${log.errors.length} log line(s) at error level or above`] : []),
    ...(laps.lost.length > 0 ? [`${laps.lost.length} lost lap(s)`] : []),
    ...(laps.phantom.length > 0 ? [`${laps.phantom.length} counted pass(es) no car made`] : []),
    ...(lostEntries.length > 0 ? [`${lostEntries.length} lost raffle entr(ies)`] : []),
    ...(unexpectedEntries.length > 0 ? [`${unexpectedEntries.length} raffle entr(ies) nobody sent`] : []),
    ...(heapGrowth >= MAX_GROWTH ? [`heap grew ${round(heapGrowth * 100, 1)} % after the warm-up`] : []),
    ...(rssGrowth >= MAX_GROWTH ? [`RSS grew ${round(rssGrowth * 100, 1)} % after the warm-up`] : []),
  ];
  return { laps, raffles, lostEntries, heapGrowth, rssGrowth, failures };
}

function report(
  scene: Scene,
  director: RaceDirector,
  timed: Timed,
  audience: Awaited<ReturnType<Spectators['count']>>,
): boolean {
  const { log } = scene;
  const { windows, warmUp, end, driverCounts } = timed;
  const { laps, raffles, lostEntries, heapGrowth, rssGrowth, failures } = verdict(log, director, timed);
  printTable(
    `Soak, ${MINUTES} min: per ${REPORT_MINUTES} min (relay: probes end to end; srv: the server's histogram bucket; run loop: this run's own event loop; heap after a full collection)`,
    windows.map(
      (w): Row => ({
        min: w.minute,
        'loop p99 ms': w.eventloop_p99_ms,
        'loop max ms': w.eventloop_max_ms,
        'relay p99 ms': w.relay_p99_ms,
        'srv p99 ≤ ms': w.relay_server_p99_ms,
        'run loop p99 ms': w.run_loop_p99_ms,
        'heap MB': w.heap_mb,
        'RSS MB': w.rss_mb,
        'CPU %': w.server_cpu_percent,
        'event sockets': w.event_sockets,
        'conn/close': `${w.connects}/${w.closes}`,
        races: w.races,
        laps: w.laps,
        entries: w.entries,
      }),
    ),
  );
  console.info(
    `memory: warm-up (${warmUp.at_s} s) heap ${warmUp.heap_mb} MB, RSS ${warmUp.rss_mb} MB → end heap ${end.heap_mb} MB (${round(heapGrowth * 100, 1)} %), RSS ${end.rss_mb} MB (${round(rssGrowth * 100, 1)} %)`,
  );
  console.info(
    `laps: ${laps.counted} counted; ${laps.checked} crossings checked against the counted passes: ${laps.lost.length} lost, ${laps.phantom.length} phantom (${laps.unverifiable} cars with one crossing in a race: unverifiable); raffles ${raffles.length}, entries accepted ${director.entriesAccepted}, lost ${lostEntries.length}`,
  );
  if (log.warnings.size > 0)
    console.info(`warnings: ${[...log.warnings].map(([msg, n]) => `${msg} ×${n}`).join('; ')}`);
  if (director.anomalies.length > 0) console.info(`anomalies: ${director.anomalies.join('; ')}`);
  for (const line of log.errors.slice(0, 20)) console.error(`error line: ${line}`);
  for (const lap of laps.lost.slice(0, 20))
    console.error(
      `lost lap: race ${lap.raceId}, car ${lap.carId}, crossing at ${new Date(lap.at).toISOString()}${lap.sent ? '' : ' (not sent)'}`,
    );
  for (const entry of lostEntries.slice(0, 20)) console.error(`lost entry: ${entry}`);

  const result = {
    minutes: MINUTES,
    report_minutes: REPORT_MINUTES,
    race_seconds: RACE_SECONDS,
    cars: CARS,
    probes: PROBES,
    drive_rate_per_s: DRIVE_RATE,
    sockets: SOCKETS,
    churn_per_s: CHURN,
    entries_per_s: ENTRIES_PER_S,
    setup_s: scene.setupS,
    windows,
    memory: { start: timed.start, warm_up: warmUp, end, heap_growth: heapGrowth, rss_growth: rssGrowth },
    laps: {
      checked: laps.checked,
      counted: laps.counted,
      lost: laps.lost,
      phantom: laps.phantom,
      unverifiable: laps.unverifiable,
    },
    races: director.races.length,
    raffles,
    spectators: {
      opened: audience.opened,
      closed: audience.closed,
      failed: audience.failed,
      failures: audience.failures,
      closed_by_server: audience.closedByServer,
    },
    drivers: {
      controller_closes: sumCodes(driverCounts.map((c) => c.controllerCloses)),
      event_socket_closes: sumCodes(driverCounts.map((c) => c.eventCloses)),
      event_errors: driverCounts.flatMap((c) => c.errors),
      probe_drives_lost: driverCounts.reduce((n, c) => n + c.lost, 0),
    },
    log: { lines: log.lines, errors: log.errors, warnings: Object.fromEntries(log.warnings), file: log.path },
    anomalies: director.anomalies,
    failures,
  };
  console.info(`written: ${writeResult('soak', result)}`);
  if (failures.length > 0) console.error(`soak FAILED: ${failures.join('; ')}`);
  else
    console.info(
      'soak passed: no error in the log, no lost lap or entry, heap and RSS flat after the warm-up',
    );
  return failures.length === 0;
}

async function soak(): Promise<boolean> {
  console.info(
    `soak: ${MINUTES} min, ${CARS} simulated cars + ${PROBES} probes at ${DRIVE_RATE} drives/s, ${SOCKETS} event sockets (churn ${CHURN}/s), races of ${RACE_SECONDS} s, ${ENTRIES_PER_S} raffle entries/s; report every ${REPORT_MINUTES} min, warm-up sample at ${round(WARM_UP_MS / 60_000, 2)} min`,
  );
  const scene: Partial<Scene> & { log: ServerLog } = {
    log: new ServerLog(join(RESULTS_DIR, 'soak-server.log')),
  };
  let timed: Timed;
  let audience: Awaited<ReturnType<Spectators['count']>>;
  try {
    await setUp(scene);
    const { director, spectators } = scene;
    if (!director || !spectators) throw new Error('the scene is incomplete');
    timed = await runFor(scene as Scene, director, spectators);
    audience = await spectators.count();
  } finally {
    await tearDown(scene);
  }
  return report(scene as Scene, scene.director as RaceDirector, timed, audience);
}

soak().then(
  (passed) => process.exit(passed ? 0 : 1),
  (error: Error) => {
    console.error(`soak: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
