/**
 * A process holding its share of event sockets for `npm run check:nginx` (forked by
 * socket-holders.ts), so that thousands of TLS sockets never run on the check's own event loop.
 * A socket counts as open once it answered: it says `hello` as the web app does, then `ping`, and
 * the server's `pong` proves the way through nginx works both ways. Then a `ping` every 10 s, as a
 * page does (every 2 s; TALK_EVERY_MS says why less); `check` pings every socket again and counts
 * the answers; a socket the server or nginx closed is counted by its close code.
 */
import WebSocket from 'ws';
import type { FromHolder, ToHolder } from './socket-holders.js';

const PONG_TIMEOUT_MS = 15_000;
/**
 * A page pings every 2 s (TIMERS_MS.latencyPing); 5,000 of them would be 2,500 messages a second
 * through TLS on the machine's two cores, the check's own load rather than nginx's connections.
 * Every 10 s keeps each socket inside the server's 15 s keep-alive period: a socket silent for
 * longer is dropped by the server after about 30 s.
 */
const TALK_EVERY_MS = 10_000;
/** The web app's browser protocol version (docs/protocol.md). */
const HELLO = JSON.stringify({ type: 'hello', protocolVersion: 1 });

const sockets: WebSocket[] = [];
/** Close codes of sockets that ended while held (a healthy run has none). */
const closed: Record<string, number> = {};

function reply(message: FromHolder): void {
  process.send?.(message);
}

/** Sends `ping` and resolves when this socket's `pong` with the same timestamp arrives. */
function pingPong(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    const timestamp = Date.now() + Math.random();
    const timer = setTimeout(() => {
      ws.off('message', onMessage);
      reject(new Error(`no pong within ${PONG_TIMEOUT_MS} ms`));
    }, PONG_TIMEOUT_MS);
    const onMessage = (data: WebSocket.RawData) => {
      const text = data.toString();
      if (!text.includes('"pong"') || !text.includes(String(timestamp))) return;
      clearTimeout(timer);
      ws.off('message', onMessage);
      resolve();
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ type: 'ping', timestamp }));
  });
}

function open(url: string, origin: string, ca: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { ca, perMessageDeflate: false, headers: { origin } });
    ws.once('open', () => {
      ws.send(HELLO);
      pingPong(ws).then(() => resolve(ws), reject);
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused: HTTP ${response.statusCode}`)),
    );
  });
}

/** Opens `urls` with at most `concurrency` handshakes in flight (a burst of thousands would time out). */
async function connect(message: Extract<ToHolder, { kind: 'connect' }>): Promise<void> {
  let next = 0;
  let failed = 0;
  const errors = new Map<string, number>();
  await Promise.all(
    Array.from({ length: message.concurrency }, async () => {
      while (next < message.urls.length) {
        const url = message.urls[next++] as string;
        try {
          const ws = await open(url, message.origin, message.ca);
          sockets.push(ws);
          const talking = setInterval(
            () => ws.send(JSON.stringify({ type: 'ping', timestamp: Date.now() })),
            TALK_EVERY_MS,
          );
          ws.on('error', () => undefined);
          ws.once('close', (code) => {
            clearInterval(talking);
            closed[code] = (closed[code] ?? 0) + 1;
          });
        } catch (error) {
          failed++;
          const reason = (error as Error).message;
          errors.set(reason, (errors.get(reason) ?? 0) + 1);
        }
      }
    }),
  );
  reply({ kind: 'connected', open: sockets.length, failed, errors: Object.fromEntries(errors) });
}

async function check(): Promise<void> {
  const open = sockets.filter((ws) => ws.readyState === WebSocket.OPEN);
  const answers = await Promise.allSettled(open.map(pingPong));
  reply({
    kind: 'checked',
    open: open.length,
    answered: answers.filter((a) => a.status === 'fulfilled').length,
    closed: { ...closed },
  });
}

process.on('message', (message: ToHolder) => {
  switch (message.kind) {
    case 'connect':
      void connect(message);
      break;
    case 'check':
      void check();
      break;
    case 'close':
      for (const ws of sockets) ws.terminate();
      process.exit(0);
  }
});
