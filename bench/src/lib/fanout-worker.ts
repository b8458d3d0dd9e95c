/**
 * A fan-out client process (forked by fanout-clients.ts): holds its share of the event sockets and
 * tells the bench, for each broadcast it is asked to watch, when each of its sockets received it.
 * Receipts are stamped on the epoch clock in high resolution (`timeOrigin + now()`), which every
 * process on the machine shares, so the bench compares them with the instant it sent the trigger.
 * Messages are matched on their bytes (type and a per-sample marker), never parsed: 5,000 JSON
 * parses per broadcast would be client time added to the server's.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { FromWorker, ToWorker } from './fanout-clients.js';

const sockets: WebSocket[] = [];
/** The broadcast being watched: what it looks like and when each socket got it (NaN: not yet). */
let watching: {
  sample: number;
  type: Buffer;
  marker: Buffer;
  receivedAt: Float64Array;
  missing: number;
  cpuStart: NodeJS.CpuUsage;
  timer: NodeJS.Timeout;
} | null = null;

const epochNow = () => performance.timeOrigin + performance.now();

function reply(message: FromWorker): void {
  process.send?.(message);
}

function finishWatch(): void {
  if (!watching) return;
  const { sample, receivedAt, missing, cpuStart, timer } = watching;
  clearTimeout(timer);
  watching = null;
  const cpu = process.cpuUsage(cpuStart);
  reply({
    kind: 'received',
    sample,
    times: Array.from(receivedAt).filter((t) => !Number.isNaN(t)),
    missing,
    cpuMs: (cpu.user + cpu.system) / 1000,
  });
}

function onMessage(index: number, data: WebSocket.RawData): void {
  const watch = watching;
  if (!watch || !Number.isNaN(watch.receivedAt[index] ?? 0)) return;
  const at = epochNow();
  const bytes = data as Buffer;
  if (!bytes.includes(watch.type) || !bytes.includes(watch.marker)) return;
  watch.receivedAt[index] = at;
  watch.missing--;
  if (watch.missing === 0) finishWatch();
}

function open(url: string, origin: string | undefined): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, headers: origin ? { origin } : {} });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused: HTTP ${response.statusCode}`)),
    );
  });
}

/** Opens `urls` with at most `concurrency` handshakes in flight (a burst of thousands would time out). */
async function connect(urls: string[], origin: string | undefined, concurrency: number): Promise<void> {
  let next = 0;
  let failed = 0;
  const errors = new Set<string>();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++] as string;
        try {
          const ws = await open(url, origin);
          const index = sockets.length;
          sockets.push(ws);
          ws.on('message', (data) => onMessage(index, data));
          ws.on('error', () => undefined);
        } catch (error) {
          failed++;
          errors.add((error as Error).message);
        }
      }
    }),
  );
  reply({ kind: 'connected', open: sockets.length, failed, errors: [...errors].slice(0, 5) });
}

process.on('message', (message: ToWorker) => {
  switch (message.kind) {
    case 'connect':
      void connect(message.urls, message.origin, message.concurrency);
      break;
    case 'watch': {
      const open = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
      watching = {
        sample: message.sample,
        type: Buffer.from(`"type":"${message.type}"`),
        marker: Buffer.from(message.marker),
        receivedAt: new Float64Array(sockets.length).fill(Number.NaN),
        missing: open,
        cpuStart: process.cpuUsage(),
        timer: setTimeout(finishWatch, message.timeoutMs),
      };
      reply({ kind: 'watching', sample: message.sample, open });
      break;
    }
    case 'close':
      for (const ws of sockets) ws.terminate();
      process.exit(0);
  }
});
