/**
 * The drive channel worker failing: what waits for it settles, the next offer starts another. The
 * real worker (werift answering real offers) is drive-channel.once.test.ts's.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { DriveChannelThread } from './drive-channel-thread.js';

/** A worker that answers every offer with a fixed SDP, and dies on an offer of 'crash'. */
const standIn = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', (m) => {
       if (m.op !== 'offer') return;
       if (m.sdp === 'crash') throw new Error('werift blew up');
       parentPort.postMessage({ ev: 'answer', id: m.id, sdp: 'answer to ' + m.sdp });
       parentPort.postMessage({ ev: 'message', id: m.id, data: new TextEncoder().encode('hi') });
     });`,
    { eval: true },
  );

const network = { publicIp: null, udpPorts: null };

describe('the drive channel thread', () => {
  it('settles the offers of a worker that fails as unavailable, and starts another for the next offer', async () => {
    let started = 0;
    const thread = new DriveChannelThread(() => {
      started += 1;
      return standIn();
    });
    const heard: string[] = [];
    const first = thread.offer('one', network, 'drive', (data) => heard.push(data.toString()));
    expect(await first.outcome).toEqual({ answer: 'answer to one' });
    await expect.poll(() => heard).toEqual(['hi']);

    const crashing = thread.offer('crash', network, 'drive', () => {});
    const outcome = await crashing.outcome;
    expect(outcome).toMatchObject({ unavailable: expect.stringContaining('werift blew up') });
    expect(started).toBe(1);

    const next = thread.offer('two', network, 'drive', () => {});
    expect(await next.outcome).toEqual({ answer: 'answer to two' });
    expect(started).toBe(2);
    thread.close(next.id);
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
