/**
 * The drive channel worker: failing (what waits for it settles, every exit is counted and told,
 * another starts after the supervisor's backoff), and its peers' lifetimes — a close that arrives
 * while werift is still loading leaves no peer and no UDP port behind (issue 39).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { RESTART_DELAYS } from '../../child-process.js';
import { DRIVE_CHANNEL_WORKER } from '../../paths.js';
import { ManualClock } from '../../test/clock.js';
import { SAMPLE_DRIVE_OFFER } from '../../test/drive-channel-client.js';
import { DriveChannelThread, type WorkerExit } from './drive-channel-thread.js';

/** A worker that answers every offer with a fixed SDP, and dies on an offer of 'crash'. */
const standIn = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', (m) => {
       if (m.op !== 'offer') return;
       if (m.sdp === 'crash') throw new Error('werift blew up');
       if (m.sdp === 'exit') process.exit(3);
       parentPort.postMessage({ ev: 'answer', id: m.id, sdp: 'answer to ' + m.sdp });
       parentPort.postMessage({ ev: 'message', id: m.id, data: new TextEncoder().encode('hi') });
     });`,
    { eval: true },
  );

const network = { publicIp: null, udpPorts: null, allowedNetworks: [] };

/** UDP sockets this process holds (its worker threads' included), from /proc. */
function udpSocketsHeld(): number {
  const inodes = new Set(
    ['udp', 'udp6'].flatMap((table) =>
      readFileSync(`/proc/net/${table}`, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((row) => row.trim().split(/\s+/)[9]),
    ),
  );
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1]);
    } catch {
      return false;
    }
  }).length;
}

const threads: DriveChannelThread[] = [];
afterEach(() => {
  threads.splice(0);
});

describe('the drive channel thread', () => {
  it('settles the offers of a failed worker as unavailable, counts and tells the exit, and starts another after the backoff', async () => {
    const clock = new ManualClock();
    let started = 0;
    const thread = new DriveChannelThread(() => {
      started += 1;
      return standIn();
    }, clock);
    const exits: WorkerExit[] = [];
    thread.onExit((exit) => exits.push(exit));
    const heard: string[] = [];
    const first = thread.offer('one', network, 'drive', (data) => heard.push(data.toString()));
    expect(await first.outcome).toEqual({ answer: 'answer to one' });
    await expect.poll(() => heard).toEqual(['hi']);

    const crashing = thread.offer('crash', network, 'drive', () => {});
    expect(await crashing.outcome).toMatchObject({ unavailable: expect.stringContaining('werift blew up') });
    expect(thread.counters.workerExits).toBe(1);
    expect(exits).toEqual([
      { reason: expect.stringContaining('werift blew up'), restartInMs: RESTART_DELAYS.initialMs },
    ]);

    // Within the backoff: no worker to take it, the page offers again later.
    const tooEarly = thread.offer('early', network, 'drive', () => {});
    expect(await tooEarly.outcome).toEqual({ unavailable: 'drive channel worker restarting' });
    expect(started).toBe(1);
    clock.advance(RESTART_DELAYS.initialMs);
    // Started again by the supervisor, not by the next offer.
    expect(started).toBe(2);

    const next = thread.offer('two', network, 'drive', () => {});
    expect(await next.outcome).toEqual({ answer: 'answer to two' });
    expect(started).toBe(2);
    thread.close(next.id);
  });

  it('counts an exit with no offer waiting, and doubles the wait when it crashes again soon after', async () => {
    const clock = new ManualClock();
    const thread = new DriveChannelThread(standIn, clock);
    const exits: WorkerExit[] = [];
    thread.onExit((exit) => exits.push(exit));
    const answered = thread.offer('one', network, 'drive', () => {});
    await answered.outcome;
    // An exit while nothing waits used to go unheard.
    const exiting = thread.offer('exit', network, 'drive', () => {});
    await exiting.outcome;
    clock.advance(RESTART_DELAYS.initialMs);
    await thread.offer('exit', network, 'drive', () => {}).outcome;
    expect(thread.counters.workerExits).toBe(2);
    expect(exits).toEqual([
      { reason: 'exit code 3', restartInMs: RESTART_DELAYS.initialMs },
      { reason: 'exit code 3', restartInMs: RESTART_DELAYS.initialMs * 2 },
    ]);
  });

  it('passes nothing on for a peer once it is closed', async () => {
    const thread = new DriveChannelThread(standIn);
    const heard: string[] = [];
    const offer = thread.offer('one', network, 'drive', (data) => heard.push(data.toString()));
    thread.close(offer.id);
    const other = thread.offer('two', network, 'drive', () => {});
    await other.outcome;
    // The worker answered and sent to the closed peer too (its messages came before the other's).
    expect(heard).toEqual([]);
    thread.close(other.id);
  });
});

describe('the real drive channel worker', () => {
  it('makes no peer for an offer closed while werift was still loading, and frees every port on close', async () => {
    const before = udpSocketsHeld();
    // Its own worker: werift loads for the first offer, as on a fresh server.
    const thread = new DriveChannelThread();
    const early = thread.offer(SAMPLE_DRIVE_OFFER, network, 'drive', () => {});
    thread.close(early.id);
    const kept = thread.offer(SAMPLE_DRIVE_OFFER, network, 'drive', () => {});
    expect(await kept.outcome).toHaveProperty('answer');
    // The early offer was handled first: had it made a peer, it would be counted by now.
    await expect.poll(() => thread.openPeers).toBe(1);
    expect(udpSocketsHeld()).toBeGreaterThan(before);
    thread.close(kept.id);
    await expect.poll(() => thread.openPeers).toBe(0);
    await expect.poll(udpSocketsHeld, { timeout: 5_000 }).toBe(before);
  });

  it("tells an answer without a single address of the server apart, as the server's fault (its interfaces hidden)", async () => {
    // As under a systemd unit whose RestrictAddressFamilies leaves out AF_NETLINK: Node lists no interface.
    const href = JSON.stringify(DRIVE_CHANNEL_WORKER.href);
    const thread = new DriveChannelThread(
      () =>
        new Worker(
          `const os = require('node:os');
           os.networkInterfaces = () => ({});
           require('node:module').syncBuiltinESMExports();
           import('tsx/esm/api').then(({ tsImport }) => tsImport(${href}, ${href}));`,
          { eval: true },
        ),
    );
    const offer = thread.offer(SAMPLE_DRIVE_OFFER, network, 'drive', () => {});
    expect(await offer.outcome).toEqual({ noCandidates: true });
    await expect.poll(() => thread.openPeers).toBe(0);
  });
});
