/**
 * The main thread's end of the drive channel worker (drive-channel-worker.ts): one worker per
 * process, started by the first offer (werift loads there, ~1 s, never on the main thread), its
 * peers addressed by id. What a peer's DataChannel receives comes back as a message event and goes
 * through the control link's checks here, on the relay's loop, like a socket message; the peer's
 * DTLS, SCTP and ICE work stays on the worker's.
 *
 * A worker that fails or exits takes every peer with it: offers waiting for an answer settle as
 * unavailable (no error on the page), open channels stop acknowledging and their pages drive over
 * their sockets again within a second. Every exit is counted (GET /metrics) and told to the
 * listeners (each app logs it), and the worker is started again after the supervisor's backoff
 * (child-process.ts): 250 ms doubling to 30 s, from the start again after a healthy run. Offers
 * made during that wait settle as unavailable; the pages offer again after their own backoff.
 */
import type { Worker } from 'node:worker_threads';
import { Backoff } from '@telerace/protocol';
import { HEALTHY_RUN_MS, RESTART_DELAYS } from '../../child-process.js';
import { type Clock, type ClockTimer, systemClock } from '../../clock.js';
import { DRIVE_CHANNEL_WORKER, startModuleWorker } from '../../paths.js';
import { REFUSAL_REASONS, type RefusalReason } from './drive-channel-addresses.js';
import type { DriveChannelNetwork, FromPeers, RemoteCandidate, ToPeers } from './drive-channel-peers.js';

/**
 * How an offer ended: answered, refused as the driver's error, or unavailable or answerable with
 * no candidate of the server's (both the server's fault).
 */
export type OfferOutcome =
  | { answer: string }
  | { refused: string }
  | { unavailable: string }
  | { noCandidates: true };

/** A worker's end, as the listeners hear it. */
export interface WorkerExit {
  reason: string;
  /** When the next worker starts. */
  restartInMs: number;
}

/** What the drive channels of this process did (GET /metrics). */
export interface DriveChannelCounters {
  workerExits: number;
  /** Offers by how they ended (drive-channel.ts). */
  offers: { answered: number; refused: number; busy: number; unavailable: number; noCandidates: number };
  /** Remote candidates by what the address policy made of them (drive-channel.ts). */
  candidates: { taken: number; ignored: number; overLimit: number; refused: Record<RefusalReason, number> };
}

interface PeerListener {
  settle(outcome: OfferOutcome): void;
  onMessage(data: Buffer): void;
}

/** The worker from the bundle's own file (dist/drive-channel-worker.js), or its TypeScript. */
const startWorker = (): Worker => startModuleWorker(DRIVE_CHANNEL_WORKER);

export class DriveChannelThread {
  /** `start`: the worker's source (a test's own worker); `clock`: the restarts' timer. */
  constructor(
    readonly start: () => Worker = startWorker,
    readonly clock: Clock = systemClock,
  ) {}

  readonly counters: DriveChannelCounters = {
    workerExits: 0,
    offers: { answered: 0, refused: 0, busy: 0, unavailable: 0, noCandidates: 0 },
    candidates: {
      taken: 0,
      ignored: 0,
      overLimit: 0,
      refused: Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, 0])) as Record<
        RefusalReason,
        number
      >,
    },
  };

  #worker: Worker | null = null;
  #startedAt = 0;
  #restart: ClockTimer | undefined;
  readonly #backoff = new Backoff(RESTART_DELAYS);
  #openPeers = 0;
  #nextId = 1;
  readonly #peers = new Map<number, PeerListener>();
  readonly #exitListeners = new Set<(exit: WorkerExit) => void>();

  /** Peers open in the worker now, each holding UDP ports (GET /metrics: a leak shows here). */
  get openPeers(): number {
    return this.#openPeers;
  }

  /** Told of every exit of the worker; returns the unsubscription. */
  onExit(listener: (exit: WorkerExit) => void): () => void {
    this.#exitListeners.add(listener);
    return () => this.#exitListeners.delete(listener);
  }

  /** A new peer for the offer; `onMessage` hears its DataChannel until `close(id)`. */
  offer(
    sdp: string,
    network: DriveChannelNetwork,
    label: string,
    onMessage: (data: Buffer) => void,
  ): { id: number; outcome: Promise<OfferOutcome> } {
    const id = this.#nextId++;
    if (this.#restart !== undefined)
      return { id, outcome: Promise.resolve({ unavailable: 'drive channel worker restarting' }) };
    const outcome = new Promise<OfferOutcome>((settle) => {
      this.#peers.set(id, { settle, onMessage });
    });
    this.#post({ op: 'offer', id, sdp, network, label });
    return { id, outcome };
  }

  candidate(id: number, candidate: RemoteCandidate): void {
    if (this.#peers.has(id)) this.#post({ op: 'candidate', id, candidate });
  }

  send(id: number, text: string): void {
    if (this.#peers.has(id)) this.#post({ op: 'send', id, text });
  }

  close(id: number): void {
    if (!this.#peers.delete(id)) return;
    this.#post({ op: 'close', id });
  }

  #post(message: ToPeers): void {
    this.#worker ??= this.#start();
    this.#worker.postMessage(message);
  }

  #start(): Worker {
    const worker = this.start();
    this.#startedAt = this.clock.now().getTime();
    // The server exits without waiting for it; its peers go with the process.
    worker.unref();
    worker.on('message', (message: FromPeers) => this.#heard(message));
    let failure: string | null = null;
    worker.on('error', (error) => {
      failure = error.message;
    });
    worker.on('exit', (code) => this.#gone(worker, failure ?? `exit code ${code}`));
    return worker;
  }

  /** The worker ended (it never does on its own purpose): its peers are gone, another follows. */
  #gone(worker: Worker, reason: string): void {
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#openPeers = 0;
    this.counters.workerExits += 1;
    const peers = [...this.#peers.values()];
    this.#peers.clear();
    for (const peer of peers) peer.settle({ unavailable: `drive channel worker ended: ${reason}` });
    if (this.clock.now().getTime() - this.#startedAt >= HEALTHY_RUN_MS) this.#backoff.reset();
    const restartInMs = this.#backoff.next();
    for (const listener of this.#exitListeners) listener({ reason, restartInMs });
    this.#restart = this.clock.setTimeout(() => {
      this.#restart = undefined;
      this.#worker ??= this.#start();
    }, restartInMs);
  }

  #heard(message: FromPeers): void {
    if (message.ev === 'peers') {
      this.#openPeers = message.open;
      return;
    }
    const peer = this.#peers.get(message.id);
    if (!peer) return;
    switch (message.ev) {
      case 'message':
        peer.onMessage(Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
        return;
      case 'answer':
        peer.settle({ answer: message.sdp });
        return;
      case 'refused':
        peer.settle({ refused: message.reason });
        return;
      case 'unavailable':
        peer.settle({ unavailable: message.reason });
        return;
      case 'no-candidates':
        peer.settle({ noCandidates: true });
        return;
    }
  }
}

/** The process's one worker (started by the first offer): the peers of every control link of every app in it. */
export const driveChannelThread = new DriveChannelThread();
