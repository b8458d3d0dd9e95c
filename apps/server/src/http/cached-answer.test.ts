import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { type Car, CarsResponse } from '@telerace/protocol';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  acceptedEncoding,
  cachedAnswer,
  NEW_VALUE,
  type PreparedAnswer,
  sendAnswer,
} from './cached-answer.js';

const car = (id: number, status: 'online' | 'offline' = 'offline'): Car => ({
  id,
  name: `Car ${id}`,
  image_url: null,
  status,
  stream_id: id,
  current_user_id: null,
  username: null,
  config_forward_speed: 100,
  config_backward_speed: 100,
  config_steering_trim: 0,
  session_ends_at: null,
});

/** Replies with `answer` to a request with these headers, through a real Fastify instance. */
async function sent(answer: PreparedAnswer, headers: Record<string, string> = {}) {
  const app = Fastify();
  app.get('/', async (request, reply) => sendAnswer(request, reply, answer));
  try {
    return await app.inject({ method: 'GET', url: '/', headers });
  } finally {
    await app.close();
  }
}

describe('cachedAnswer invalidated by facts', () => {
  const fleetBoard = () =>
    cachedAnswer<typeof CarsResponse, number>(CarsResponse, {
      'car.deleted': ({ carId }, cars) => cars.some((c) => c.id === carId),
      'race.finished': () => true,
    });

  it('answers what the schema would, made once per key until a fact drops it', async () => {
    const answers = fleetBoard();
    let reads = 0;
    const load = async () => {
      reads += 1;
      return [car(1), car(2)];
    };
    const first = await answers.get(1, load);
    expect(first.text).toBe(JSON.stringify(CarsResponse.parse([car(1), car(2)])));
    expect(await answers.get(1, load)).toBe(first);
    expect(reads).toBe(1);
    expect(answers.stats).toEqual({ answered: 1, made: 1 });

    // A fact about something the answer does not show leaves it; one about what it shows drops it.
    answers.handlers['car.deleted']?.({ carId: 9 });
    expect(await answers.get(1, load)).toBe(first);
    answers.handlers['car.deleted']?.({ carId: 2 });
    expect(await answers.get(1, load)).not.toBe(first);
    expect(reads).toBe(2);
  });

  it('does not keep an answer read while a fact came: the next request reads again', async () => {
    const answers = fleetBoard();
    let release: () => void = () => undefined;
    const slow = answers.get(1, () => new Promise((resolve) => (release = () => resolve([car(1)]))));
    answers.handlers['race.finished']?.({
      raceId: 1,
      finishedAt: new Date(0).toISOString(),
      reason: 'expired',
      userIds: [],
    });
    release();
    const during = await slow;
    expect(await answers.get(1, async () => [car(1, 'online')])).not.toBe(during);
    expect(answers.stats.made).toBe(2);
  });

  it('drops what the schema does not declare, like the route serializer, and refuses what it rejects', async () => {
    const answers = fleetBoard();
    const kept = await answers.get(1, async () => [{ ...car(1), secret: 'never sent' } as Car]);
    expect(kept.text).not.toContain('never sent');
    await expect(
      answers.get(2, async () => [{ ...car(1), status: 'lost' } as unknown as Car]),
    ).rejects.toThrow();
  });
});

describe('cachedAnswer invalidated by a new value', () => {
  it('makes an object’s answer once, and a new object’s afresh', () => {
    const answers = cachedAnswer(CarsResponse, NEW_VALUE);
    let made = 0;
    const first = Object.freeze({ cars: [car(1)] });
    const value = () => {
      made += 1;
      return first.cars;
    };
    expect(answers.of(first, value).text).toBe(JSON.stringify([car(1)]));
    expect(answers.of(first, value)).toBe(answers.of(first, value));
    expect(made).toBe(1);
    const replaced = [car(1, 'online')];
    expect(JSON.parse(answers.of(replaced).text)).toEqual([car(1, 'online')]);
  });

  it('sends an unchecked answer as its value is, without the schema’s pass over it', () => {
    const value = [{ ...car(1), extra: 1 }];
    expect(cachedAnswer(CarsResponse, NEW_VALUE, { unchecked: true }).of(value).text).toBe(
      JSON.stringify(value),
    );
  });
});

describe('acceptedEncoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip, deflate', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['BR;q=0.5', 'br'],
    ['gzip;q=0', null],
    ['*', 'br'],
  ])('%j takes %j', (header, encoding) => {
    expect(acceptedEncoding(header)).toBe(encoding);
  });
});

describe('sendAnswer', () => {
  const fleet = (status: 'online' | 'offline') => Array.from({ length: 12 }, (_, i) => car(i + 1, status));

  it('sends a large answer compressed in the best accepted encoding, compressed once', async () => {
    const answer = cachedAnswer(CarsResponse, NEW_VALUE).of(fleet('offline'));
    const br = await sent(answer, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(fleet('offline'));
    expect(await answer.encoded('br')).toBe(await answer.encoded('br'));
    const gzip = await sent(answer, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString())).toEqual(fleet('offline'));
  });

  it('sends small answers, and answers for clients without a known encoding, as plain JSON', async () => {
    const answers = cachedAnswer(CarsResponse, NEW_VALUE);
    const small = await sent(answers.of([car(1)]), { 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual([car(1)]);
    const plain = await sent(answers.of(fleet('online')));
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json()).toEqual(fleet('online'));
  });

  it('gives a public answer an ETag and answers 304 to a client that has it; others get neither', async () => {
    const answer = cachedAnswer(CarsResponse, NEW_VALUE, { revalidate: true }).of([car(1)]);
    const first = await sent(answer);
    expect(first.headers.etag).toMatch(/^"[\w-]{32}"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await sent(answer, { 'if-none-match': first.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const member = await sent(cachedAnswer(CarsResponse, NEW_VALUE).of([car(1)]));
    expect(member.headers.etag).toBeUndefined();
  });
});
