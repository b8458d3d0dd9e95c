/**
 * Test support for live video: an app running its own Janus (VIDEO=auto), listening on a real
 * port, with an admin client of that Janus to look at its mountpoints and viewers.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { JanusClient, STREAMING_PLUGIN } from '../modules/video/janus-client.js';
import { startTestApp } from './app.js';
import { listen, openSocket, originOf, type TestSocket } from './sockets.js';

/** Resolves once the server's Janus answers; give its `beforeAll` a minute on a slow machine. */
export async function startOwnJanusTestApp(extraEnv: Record<string, string> = {}) {
  const testApp = await startTestApp({ ...extraEnv, VIDEO: 'auto' });
  await testApp.app.videoStarted();
  const host = await listen(testApp.app);
  const supervisor = testApp.app.video.janus.supervisor;
  if (!supervisor) throw new Error('the server did not start its Janus');
  return { testApp, host, janusAdmin: new JanusClient(supervisor.httpUrl, supervisor.adminKey) };
}

/** A page's socket to the server's `/janus` proxy, from the app's own origin unless told. */
export function openJanusSocket(
  app: FastifyInstance,
  host: string,
  token: string,
  origin = originOf(app).origin,
): Promise<TestSocket> {
  return openSocket(`ws://${host}/janus?token=${encodeURIComponent(token)}`, { origin }, 'janus-protocol');
}

/** Janus's answer to the request with this transaction (its acks skipped). */
export function janusAnswer(janus: TestSocket, transaction: string) {
  return janus.next((m) => m.transaction === transaction && m.janus !== 'ack', 10_000);
}

/** A Janus session with one streaming-plugin handle on the socket, as a page's player opens them. */
export async function streamingHandle(janus: TestSocket): Promise<{ session: number; handle: number }> {
  const created = randomUUID();
  janus.send({ janus: 'create', transaction: created });
  const session = ((await janusAnswer(janus, created)).data as { id: number }).id;
  const attached = randomUUID();
  janus.send({ janus: 'attach', plugin: STREAMING_PLUGIN, session_id: session, transaction: attached });
  return { session, handle: ((await janusAnswer(janus, attached)).data as { id: number }).id };
}
