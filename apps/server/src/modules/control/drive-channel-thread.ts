/**
 * The main thread's end of the drive channel worker (drive-channel-worker.ts): one worker per
 * process, started by the first offer (werift loads there, ~1 s, never on the main thread), its
 * peers addressed by id. What a peer's DataChannel receives comes back as a message event and goes
 * through the control link's checks here, on the relay's loop, like a socket message; the peer's
 * DTLS, SCTP and ICE work stays on the worker's.
 *
 * A worker that fails or exits takes every peer with it: offers waiting for an answer settle as
 * unavailable (no error on the page), open channels stop acknowledging and their pages drive over
 * their sockets again within a second; the next offer starts a new worker.
 */
import { Worker } from 'node:worker_threads';
import { DRIVE_CHANNEL_WORKER } from '../../paths.js';
import type { DriveChannelNetwork, FromPeers, RemoteCandidate, ToPeers } from './drive-channel-peers.js';

/** How an offer ended: answered, refused as the driver's error, or unavailable (the server's). */
export type OfferOutcome = { answer: string } | { refused: string } | { unavailable: string };

interface PeerListener {
  settle(outcome: OfferOutcome): void;
  onMessage(data: Buffer): void;
}

/**
 * The worker from the bundle's own file (dist/drive-channel-worker.js), or, running from the
 * sources (tsx, Vitest), from its TypeScript through tsx's API: a worker does not inherit the
 * parent thread's module loader.
 */
function startWorker(): Worker {
  const file = DRIVE_CHANNEL_WORKER;
  if (!file.pathname.endsWith('.ts')) return new Worker(file);
  const href = JSON.stringify(file.href);
  return new Worker(`import('tsx/esm/api').then(({ tsImport }) => tsImport(${href}, ${href}))`, {
    eval: true,
  });
}

export class DriveChannelThread {
  /** `start`: the worker's source (a test's own worker). */
  constructor(readonly start: () => Worker = startWorker) {}

  #worker: Worker | null = null;
  #nextId = 1;
  readonly #peers = new Map<number, PeerListener>();

  /** A new peer for the offer; `onMessage` hears its DataChannel until `close(id)`. */
  offer(
    sdp: string,
    network: DriveChannelNetwork,
    label: string,
    onMessage: (data: Buffer) => void,
  ): { id: number; outcome: Promise<OfferOutcome> } {
    const id = this.#nextId++;
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
    // The server exits without waiting for it; its peers go with the process.
    worker.unref();
    worker.on('message', (message: FromPeers) => this.#heard(message));
    const gone = (reason: string) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      const peers = [...this.#peers.values()];
      this.#peers.clear();
      for (const peer of peers) peer.settle({ unavailable: reason });
    };
    worker.on('error', (error) => gone(`drive channel worker failed: ${error.message}`));
    worker.on('exit', (code) => gone(`drive channel worker exited (${code})`));
    return worker;
  }

  #heard(message: FromPeers): void {
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
    }
  }
}

/** The process's one worker (started by the first offer): the peers of every control link of every app in it. */
export const driveChannelThread = new DriveChannelThread();
