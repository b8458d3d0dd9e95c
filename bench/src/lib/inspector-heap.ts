/**
 * A measured process's memory after a full garbage collection, through its inspector (started
 * with `NODE_OPTIONS=--inspect=127.0.0.1:<port>`, see `inspectEnv`). Without the collection, the
 * resident size compared before and after opening sockets mostly says when V8 last collected:
 * on a fresh server it even went down while 250 sockets opened.
 */
import WebSocket from 'ws';
import { freePort } from './processes.js';

export async function inspectEnv(): Promise<{ port: number; env: Record<string, string> }> {
  const port = await freePort();
  return { port, env: { NODE_OPTIONS: `--inspect=127.0.0.1:${port}` } };
}

/** Collects garbage in the process and returns its JS heap in use (KB). */
export async function collectedHeapKb(port: number): Promise<number> {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  if (!target) throw new Error(`no inspector target on port ${port}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let nextId = 0;
  const call = (method: string) =>
    new Promise<Record<string, number>>((resolve) => {
      const id = ++nextId;
      const onMessage = (data: WebSocket.RawData) => {
        const reply = JSON.parse(data.toString()) as { id?: number; result?: Record<string, number> };
        if (reply.id !== id) return;
        ws.off('message', onMessage);
        resolve(reply.result ?? {});
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const { usedSize } = await call('Runtime.getHeapUsage');
    return (usedSize ?? Number.NaN) / 1024;
  } finally {
    ws.close();
  }
}
