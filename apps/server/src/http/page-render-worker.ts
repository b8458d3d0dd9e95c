/**
 * The thread that draws public pages (page-render.ts): the web build's renderer runs here, off the
 * event loop that relays the cars' commands — a page takes milliseconds of React work, a drive
 * command must not wait behind it. The renderer's reads of the API come back to the main thread
 * (its router answers them, in process) as messages.
 */
import { parentPort } from 'node:worker_threads';
import type { PageAnswer, RendererModule, ToRenderer } from './page-render-messages.js';

if (!parentPort) throw new Error('page-render-worker.ts runs as a worker thread');
const port = parentPort;

const renderers = new Map<string, Promise<RendererModule>>();
const asked = new Map<number, (answer: PageAnswer) => void>();
let nextAsk = 0;

/** A read of the server's public API, answered by the main thread. */
function ask(url: string, init: RequestInit): Promise<Response> {
  if ((init.method ?? 'GET') !== 'GET')
    return Promise.reject(new Error(`the page renderer only reads: ${url}`));
  const id = nextAsk++;
  return new Promise<PageAnswer>((resolve) => {
    asked.set(id, resolve);
    port.postMessage({ kind: 'ask', id, url });
  }).then(
    (answer) =>
      new Response(answer.status === 204 || answer.status === 304 ? null : answer.body, {
        status: answer.status,
        headers: { 'content-type': answer.contentType },
      }),
  );
}

/** The renderer of one build (the server may be rebuilt while it runs: a new file, a new module). */
function rendererOf(href: string): Promise<RendererModule> {
  let renderer = renderers.get(href);
  if (!renderer) {
    renderer = (import(href) as Promise<RendererModule>).then((module) => {
      module.setApiTransport(ask);
      return module;
    });
    renderers.set(href, renderer);
  }
  return renderer;
}

port.on('message', (message: ToRenderer) => {
  if (message.kind === 'answer') {
    asked.get(message.id)?.(message.answer);
    asked.delete(message.id);
    return;
  }
  rendererOf(message.href)
    .then((renderer) => renderer.renderPage(message.url, message.language, message.now))
    .then(
      (page) => port.postMessage({ kind: 'rendered', id: message.id, page }),
      (error: unknown) =>
        port.postMessage({
          kind: 'failed',
          id: message.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
    );
});
