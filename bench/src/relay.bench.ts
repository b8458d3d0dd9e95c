/**
 * `npm run bench -- relay`: N controllers each send 50 drive messages per second to N cars for
 * 20 s through the real server's control relay; the cars measure how long each new drive took to
 * arrive and how many never did. The same clients and load then go through a bare `ws` forwarder
 * in the same run: the ratio is the relay's cost. Cars here are protocol-speaking clients in the
 * bench process (not agent processes), so sender and receiver share one clock.
 * Options (environment): RELAY_PAIRS (50), RELAY_RATE (50 per second), RELAY_SECONDS (20).
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { startScript, startTelerace } from './lib/processes.js';
import { printTable, round, writeResult } from './lib/report.js';
import { summarize } from './lib/stats.js';

const PAIRS = Number(process.env.RELAY_PAIRS ?? 50);
const RATE = Number(process.env.RELAY_RATE ?? 50);
const SECONDS = Number(process.env.RELAY_SECONDS ?? 20);
const ADMIN = { email: 'bench-admin@telerace.test', password: 'bench-admin-Passw0rd!' };
/** Distinct throttle values: one per message sent, so a car tells a new drive from a heartbeat. */
const VALUES = RATE * SECONDS + 10;

interface Pair {
  controller: WebSocket;
  car: WebSocket;
}

interface Measure {
  latencies: number[];
  sent: number;
  received: number;
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function api<T>(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string; ip?: string },
): Promise<T> {
  const res = await fetch(`${base}/api${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      // Each bench driver gets its own address (TRUST_PROXY is on) so per-IP limits see many people.
      ...(init.ip ? { 'x-forwarded-for': init.ip } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Provisions N cars and N drivers on the real server and opens their sockets. */
async function teleracePairs(base: string): Promise<Pair[]> {
  const ws = base.replace(/^http/, 'ws');
  const { accessToken: admin } = await api<{ accessToken: string }>(base, '/login', {
    method: 'POST',
    body: { ...ADMIN, recaptchaToken: '' },
  });
  const pairs: Pair[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const ip = `10.77.${Math.floor(i / 250)}.${(i % 250) + 1}`;
    const { car, secret } = await api<{ car: { id: number }; secret: string }>(base, '/admin/cars', {
      method: 'POST',
      token: admin,
      body: { name: `Bench ${i + 1}`, image_url: null },
    });
    const carSocket = await open(`${ws}/rcsocket?type=car&car=${car.id}`, {
      authorization: `Bearer ${secret}`,
    });
    const welcomed = new Promise<void>((resolve) => carSocket.once('message', () => resolve()));
    carSocket.send(JSON.stringify({ type: 'hello', protocolVersion: 1, agentVersion: 'bench' }));
    await welcomed;
    const email = `driver${i}-${Date.now()}@bench.telerace.test`;
    const password = 'bench-driver-Passw0rd!';
    await api(base, '/signup', {
      method: 'POST',
      ip,
      body: { email, username: `bench${i}x${Date.now() % 100000}`, password, recaptchaToken: '' },
    });
    const { accessToken } = await api<{ accessToken: string }>(base, '/login', {
      method: 'POST',
      ip,
      body: { email, password, recaptchaToken: '' },
    });
    const { code } = await api<{ code: string }>(base, `/admin/cars/${car.id}/generate_code`, {
      method: 'POST',
      token: admin,
    });
    const { controlToken } = await api<{ controlToken: string }>(base, `/cars/${car.id}/connect`, {
      method: 'POST',
      ip,
      token: accessToken,
      body: { code },
    });
    const controller = await open(
      `${ws}/rcsocket?type=controller&car=${car.id}&control_token=${encodeURIComponent(controlToken)}&token=${encodeURIComponent(accessToken)}`,
      { origin: base },
    );
    pairs.push({ controller, car: carSocket });
  }
  return pairs;
}

const FORWARDER = `
import { WebSocketServer } from 'ws';
const cars = new Map();
const wss = new WebSocketServer({ port: Number(process.env.PORT), host: '127.0.0.1', perMessageDeflate: false });
wss.on('connection', (socket, request) => {
  const url = new URL(request.url, 'http://x');
  const id = url.searchParams.get('id');
  if (url.pathname === '/car') { cars.set(id, socket); return; }
  socket.on('message', (data) => cars.get(id)?.send(data.toString()));
});
`;

async function baselinePairs(url: string): Promise<Pair[]> {
  const ws = url.replace(/^http/, 'ws');
  const pairs: Pair[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const car = await open(`${ws}/car?id=${i}`);
    const controller = await open(`${ws}/controller?id=${i}`);
    pairs.push({ controller, car });
  }
  return pairs;
}

/** Drives every pair at RATE messages per second for SECONDS and measures arrival on the cars. */
async function drive(pairs: Pair[]): Promise<Measure> {
  const measure: Measure = { latencies: [], sent: 0, received: 0 };
  const sentAt = pairs.map(() => new Map<number, number>());
  pairs.forEach((pair, i) => {
    let last = Number.NaN;
    pair.car.on('message', (data) => {
      const now = performance.now();
      const message = JSON.parse(data.toString()) as { type?: string; throttle?: number };
      if (message.type !== 'drive' || message.throttle === undefined || message.throttle === last) return;
      last = message.throttle;
      const at = sentAt[i]?.get(message.throttle);
      if (at === undefined) return;
      sentAt[i]?.delete(message.throttle);
      measure.latencies.push(now - at);
      measure.received++;
    });
  });
  const interval = 1000 / RATE;
  const ticks = RATE * SECONDS;
  const start = performance.now();
  // Each controller keeps its own phase within the tick, as real drivers do: no artificial bursts.
  await Promise.all(
    pairs.map(async (pair, i) => {
      const phase = (i / pairs.length) * interval;
      for (let tick = 0; tick < ticks; tick++) {
        const wait = start + phase + tick * interval - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const throttle = ((tick % VALUES) + 1) / (VALUES + 1);
        sentAt[i]?.set(throttle, performance.now());
        pair.controller.send(JSON.stringify({ type: 'drive', throttle, steer: 0 }));
        measure.sent++;
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  for (const pair of pairs) {
    pair.controller.close();
    pair.car.close();
  }
  return measure;
}

export async function relayBench(): Promise<void> {
  const baselineServer = await startScript(FORWARDER, null);
  const base = await drive(await baselinePairs(baselineServer.url));
  await baselineServer.stop();

  const telerace = await startTelerace({
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    TRUST_PROXY: '1',
    API_RATE_LIMIT_PER_MINUTE: '100000',
    SIGNUP_RATE_LIMIT_PER_HOUR: '100000',
  });
  let ours: Measure;
  try {
    ours = await drive(await teleracePairs(telerace.url));
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
