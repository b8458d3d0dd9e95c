/**
 * The server's end of the cars' video uplink (docs/video.md "The car's uplink"), run on a thread
 * of its own (ingest-worker.ts): a UDP port per car where its SRTP and parity packets arrive; what
 * authenticates goes on to the car's Janus mountpoint, repaired when packets were lost. The video
 * service opens a car's port when it makes its mountpoint and tells the car that port.
 *
 * If the thread dies it is started again after a second, every car's port re-opened (the same
 * one when it is still free); a car whose port changed is told (`onMoved`).
 */
import type { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { startModuleWorker, VIDEO_INGEST_WORKER } from '../../../paths.js';
import type { FromIngest, ToIngest } from './ingest-messages.js';

type Open = Extract<ToIngest, { type: 'open' }>;
export type IngestFigures = Extract<FromIngest, { type: 'stats' }>['cars'][number];

export interface VideoIngestOptions {
  log: FastifyBaseLogger;
  /** A car's port changed after the thread was restarted: tell the car. */
  onMoved(carId: number, port: number): void;
  /** The thread (a test's own). */
  start?: () => Worker;
}

const RESTART_MS = 1_000;

export class VideoIngest {
  readonly #options: VideoIngestOptions;
  #worker: Worker | null = null;
  #stopping = false;
  /** Each open car's last request and port. */
  readonly #open = new Map<number, { request: Open; port: number | null }>();
  readonly #waiting = new Map<number, { resolve(port: number): void; reject(error: Error): void }[]>();
  readonly #figures = new Map<number, IngestFigures>();
  /** Thread restarts after a crash, for the metrics. */
  restarts = 0;

  constructor(options: VideoIngestOptions) {
    this.#options = options;
  }

  /** Opens (or re-keys) the car's port; resolves the port the car must send to. */
  open(carId: number, request: Omit<Open, 'type' | 'carId' | 'prefer'>): Promise<number> {
    const known = this.#open.get(carId);
    const message: Open = {
      type: 'open',
      carId,
      ...request,
      ...(known?.port ? { prefer: known.port } : {}),
    };
    this.#open.set(carId, { request: message, port: known?.port ?? null });
    return new Promise((resolve, reject) => {
      const list = this.#waiting.get(carId) ?? [];
      list.push({ resolve, reject });
      this.#waiting.set(carId, list);
      this.#thread().postMessage(message);
    });
  }

  close(carId: number): void {
    if (!this.#open.delete(carId)) return;
    this.#figures.delete(carId);
    this.#worker?.postMessage({ type: 'close', carId } satisfies ToIngest);
  }

  /** The car's port, once open. */
  portOf(carId: number): number | null {
    return this.#open.get(carId)?.port ?? null;
  }

  /** Every open car's figures of the last second. */
  allFigures(): Iterable<IngestFigures> {
    return this.#figures.values();
  }

  /** The car's figures of the last second, while its port is open. */
  figuresOf(carId: number): IngestFigures | undefined {
    return this.#figures.get(carId);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = (this.#options.start ?? (() => startModuleWorker(VIDEO_INGEST_WORKER)))();
    worker.unref();
    worker.on('message', (message: FromIngest) => this.#heard(message));
    worker.on('error', (error) => this.#options.log.error({ err: error }, 'video ingest thread failed'));
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      if (this.#stopping) return;
      this.restarts++;
      this.#options.log.error({ code }, 'video ingest thread ended: starting it again');
      setTimeout(() => this.#reopenAll(), RESTART_MS).unref();
    });
    this.#worker = worker;
    return worker;
  }

  #reopenAll(): void {
    if (this.#stopping) return;
    for (const { request, port } of this.#open.values())
      this.#thread().postMessage({ ...request, ...(port ? { prefer: port } : {}) } satisfies Open);
  }

  #heard(message: FromIngest): void {
    if (message.type === 'stats') {
      for (const figures of message.cars)
        if (this.#open.has(figures.carId)) this.#figures.set(figures.carId, figures);
      return;
    }
    const waiting = this.#waiting.get(message.carId) ?? [];
    this.#waiting.delete(message.carId);
    if (message.type === 'failed') {
      this.#options.log.error(
        { carId: message.carId, error: message.error },
        'video ingest: cannot open the car’s port',
      );
      for (const waiter of waiting) waiter.reject(new Error(message.error));
      return;
    }
    const open = this.#open.get(message.carId);
    if (!open) return;
    const moved = open.port !== null && open.port !== message.port;
    open.port = message.port;
    for (const waiter of waiting) waiter.resolve(message.port);
    if (moved && waiting.length === 0) this.#options.onMoved(message.carId, message.port);
  }
}
