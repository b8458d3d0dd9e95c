import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { RequestTurns, registerRequestTurns } from './request-turns.js';

/** Records a mark at every turn of the event loop until stopped (what a socket read would get). */
function everyTurn(marks: string[]): () => void {
  let running = true;
  const tick = () => {
    if (!running) return;
    marks.push('turn');
    setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    running = false;
  };
}

describe('RequestTurns', () => {
  it('keeps the order when work keeps arriving while it runs (the queue never runs dry)', async () => {
    const turns = new RequestTurns();
    const ran: number[] = [];
    const total = 1_200;
    let queued = 0;
    const finished = new Promise<void>((resolve) => {
      const piece = (n: number) => () => {
        ran.push(n);
        // Each piece queues two more while earlier ones still wait, as a steady load does.
        for (let i = 0; i < 2 && queued < total; i++) turns.enqueue(piece(queued++));
        if (ran.length === total) resolve();
      };
      turns.enqueue(piece(queued++));
    });
    await finished;
    expect(ran).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(turns.waiting).toBe(0);
  });

  it('runs queued work in order, one piece per turn of the event loop', async () => {
    const turns = new RequestTurns();
    const marks: string[] = [];
    const stop = everyTurn(marks);
    const done = new Promise<void>((resolve) => {
      for (let i = 1; i <= 3; i++) turns.enqueue(() => marks.push(`work ${i}`));
      turns.enqueue(resolve);
    });
    await done;
    stop();
    const work = marks.map((mark, index) => [mark, index] as const).filter(([mark]) => mark !== 'turn');
    expect(work.map(([mark]) => mark)).toEqual(['work 1', 'work 2', 'work 3']);
    // Something else ran between each piece of work and the next.
    for (let i = 1; i < work.length; i++)
      expect((work[i]?.[1] ?? 0) - (work[i - 1]?.[1] ?? 0)).toBeGreaterThan(1);
    expect(turns.waiting).toBe(0);
  });

  it('lets the loop run between requests that are ready together, and answers them all', async () => {
    const app = Fastify();
    registerRequestTurns(app, 0);
    const marks: string[] = [];
    app.get('/read', async () => {
      marks.push('request');
      return { ok: true };
    });
    await app.ready();
    const stop = everyTurn(marks);
    const answers = await Promise.all(Array.from({ length: 5 }, () => app.inject('/read')));
    stop();
    await app.close();
    expect(answers.map((answer) => answer.json())).toEqual(Array(5).fill({ ok: true }));
    const requests = marks.flatMap((mark, index) => (mark === 'request' ? [index] : []));
    expect(requests).toHaveLength(5);
    for (let i = 1; i < requests.length; i++) {
      expect((requests[i] ?? 0) - (requests[i - 1] ?? 0), 'a turn between two requests').toBeGreaterThan(1);
    }
  });

  it('runs work back to back within its time budget, then lets the loop turn', async () => {
    const turns = new RequestTurns(5);
    const marks: string[] = [];
    const stop = everyTurn(marks);
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const done = new Promise<void>((resolve) => {
      turns.enqueue(() => marks.push('quick 1'));
      turns.enqueue(() => marks.push('quick 2'));
      turns.enqueue(() => {
        busy(6);
        marks.push('slow');
      });
      turns.enqueue(() => marks.push('after the budget'));
      turns.enqueue(resolve);
    });
    await done;
    stop();
    const work = marks.filter((mark) => mark !== 'turn');
    expect(work).toEqual(['quick 1', 'quick 2', 'slow', 'after the budget']);
    const at = (mark: string) => marks.indexOf(mark);
    expect(at('quick 2') - at('quick 1')).toBe(1);
    expect(at('slow') - at('quick 2')).toBe(1);
    expect(at('after the budget') - at('slow')).toBeGreaterThan(1);
  });
});
