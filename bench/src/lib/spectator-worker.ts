/**
 * A spectator process (forked by spectators.ts): holds its share of the soak run's event sockets,
 * each one doing what the web app's event socket does (apps/web/src/lib/event-socket.ts): `hello`,
 * `get_current_state` and a `ping` on open, a `ping` every 2 s, a `ping_update` with each round
 * trip. Churn closes the oldest socket and opens a new one at a steady pace; a socket the server
 * closes, or an upgrade it refuses, is counted and replaced (a top-up each second keeps the
 * audience at its size, also when a stalled server left many closes and opens pending).
 * Messages are only looked at for `pong` (by their bytes): parsing every broadcast would be
 * client time taken from the server's two cores.
 */
import WebSocket from 'ws';
import {
  type FromSpectatorWorker,
  noCounts,
  type SpectatorCounts,
  type ToSpectatorWorker,
} from './spectators.js';

/** CONTROL_LIMITS.eventSocketsPerMember: a member may hold this many event sockets. */
const SOCKETS_PER_MEMBER = 5;
/** TIMERS_MS.latencyPing: the web app's ping period on every event socket. */
const PING_MS = 2_000;
/** BROWSER_PROTOCOL_VERSION, said in `hello`. */
const HELLO = JSON.stringify({ type: 'hello', protocolVersion: 1 });
const GET_STATE = JSON.stringify({ type: 'get_current_state' });
/** Sockets being opened at once while filling (a burst of thousands would time out). */
const FILL_CONCURRENCY = 20;
/** How often missing sockets (refused, lost) are replaced. */
const TOP_UP_MS = 1_000;
const ROUND_TRIP_SLOTS = 2_001;
const PONG = Buffer.from('"type":"pong"');

interface Member {
  id: number;
  token: string;
  /** Sockets opening or open (a closing one counts until it is closed). */
  sockets: number;
}

interface Held {
  ws: WebSocket;
  member: Member;
  ping?: NodeJS.Timeout;
  /** Closed by the churn (not by the server). */
  churned: boolean;
}

let base = '';
const members: Member[] = [];
let nextMember = 0;
/** Open sockets, oldest first: the churn closes from the front. */
const held: Held[] = [];
/** Upgrades on their way. */
let opening = 0;
let target = 0;
let stopping = false;
const counts = noCounts();
const roundTrips = new Uint32Array(ROUND_TRIP_SLOTS);

function reply(message: FromSpectatorWorker): void {
  process.send?.(message);
}

function snapshot(): SpectatorCounts {
  return { ...counts, open: held.length, roundTripMs: Array.from(roundTrips) };
}

/** The next member (round robin) with room for one more socket. */
function memberWithRoom(): Member | null {
  for (let i = 0; i < members.length; i++) {
    const member = members[(nextMember + i) % members.length] as Member;
    if (member.sockets < SOCKETS_PER_MEMBER) {
      nextMember = (nextMember + i + 1) % members.length;
      return member;
    }
  }
  return null;
}

function fail(reason: string): void {
  counts.failed++;
  if (counts.failures.length < 10 && !counts.failures.includes(reason)) counts.failures.push(reason);
}

function onMessage(socket: Held, data: WebSocket.RawData): void {
  counts.received++;
  const bytes = data as Buffer;
  if (!bytes.includes(PONG)) return;
  const { timestamp } = JSON.parse(bytes.toString()) as { timestamp?: number };
  if (typeof timestamp !== 'number') return;
  const latency = Math.max(0, Date.now() - timestamp);
  const slot = Math.min(ROUND_TRIP_SLOTS - 1, Math.floor(latency));
  roundTrips[slot] = (roundTrips[slot] ?? 0) + 1;
  socket.ws.send(JSON.stringify({ type: 'ping_update', latency: Math.min(60_000, Math.round(latency)) }));
}

const ping = (socket: Held) => socket.ws.send(JSON.stringify({ type: 'ping', timestamp: Date.now() }));

/** Opens one socket for `member`; resolves once it is open or has failed (the top-up replaces it). */
function openOne(member: Member): Promise<void> {
  member.sockets++;
  opening++;
  const url = `${base.replace(/^http/, 'ws')}/api/race-ws?token=${encodeURIComponent(member.token)}`;
  const ws = new WebSocket(url, { perMessageDeflate: false, headers: { origin: base } });
  const socket: Held = { ws, member, churned: false };
  return new Promise((resolve) => {
    let opened = false;
    ws.once('open', () => {
      opened = true;
      opening--;
      counts.opened++;
      held.push(socket);
      ws.send(HELLO);
      ws.send(GET_STATE);
      ping(socket);
      socket.ping = setInterval(() => ping(socket), PING_MS);
      resolve();
    });
    ws.on('message', (data) => onMessage(socket, data));
    ws.once('unexpected-response', (_request, response) => {
      fail(`upgrade refused: HTTP ${response.statusCode}`);
      ws.terminate();
    });
    ws.on('error', (error) => {
      if (!opened) fail(error.message);
    });
    ws.once('close', (code) => {
      clearInterval(socket.ping);
      member.sockets--;
      const index = held.indexOf(socket);
      if (index >= 0) held.splice(index, 1);
      if (!opened) {
        opening--;
        resolve();
      } else if (socket.churned) counts.closed++;
      else counts.closedByServer[code] = (counts.closedByServer[code] ?? 0) + 1;
    });
  });
}

/**
 * Opens what the audience lacks, as far as members have room (a socket still closing keeps its
 * member's place until it is closed: the next top-up takes it).
 */
function topUp(): void {
  while (!stopping && held.length + opening < target) {
    const member = memberWithRoom();
    if (!member) return;
    void openOne(member);
  }
}

async function fill(): Promise<void> {
  await Promise.all(
    Array.from({ length: FILL_CONCURRENCY }, async () => {
      for (let member = memberWithRoom(); member && held.length + opening < target; member = memberWithRoom())
        await openOne(member);
    }),
  );
}

/** One socket out (the oldest) and one in, `perSecond` times a second; the top-up each second. */
function churn(perSecond: number): void {
  setInterval(topUp, TOP_UP_MS);
  if (perSecond <= 0) return;
  setInterval(() => {
    if (stopping) return;
    const oldest = held.shift();
    if (oldest) {
      oldest.churned = true;
      oldest.ws.close(1000);
    }
    topUp();
  }, 1000 / perSecond);
}

process.on('message', (message: ToSpectatorWorker) => {
  switch (message.kind) {
    case 'start':
      base = message.base;
      target = message.sockets;
      for (const { id, token } of message.members) members.push({ id, token, sockets: 0 });
      void fill().then(() => {
        reply({ kind: 'filled', counts: snapshot() });
        churn(message.churnPerSecond);
      });
      break;
    case 'tokens':
      for (const { id, token } of message.members) {
        const member = members.find((m) => m.id === id);
        if (member) member.token = token;
      }
      break;
    case 'count':
      reply({ kind: 'counted', counts: snapshot() });
      break;
    case 'stop':
      stopping = true;
      for (const { ws } of held) ws.terminate();
      process.exit(0);
  }
});
