import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { type Car, CarsResponse } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { acceptedEncoding, CachedJson, JsonPerObject, sameJsonValue } from './cached-json.js';

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

describe('sameJsonValue', () => {
  it.each([
    [1, 1, true],
    [1, '1', false],
    [null, null, true],
    [null, {}, false],
    [[], {}, false],
    [{}, [], false],
    [[1, 2], [1, 2], true],
    [[1, 2], [2, 1], false],
    [[1], [1, 1], false],
    [{ a: 1, b: [true] }, { b: [true], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, false],
    [{ a: undefined }, { b: undefined }, false],
    [{ a: { b: 'x' } }, { a: { b: 'y' } }, false],
  ])('%j and %j: %s', (a, b, same) => {
    expect(sameJsonValue(a, b)).toBe(same);
  });
});

describe('CachedJson', () => {
  it('answers what the schema would, serializing again only when the answer changed', () => {
    const cache = new CachedJson(CarsResponse);
    const first = cache.json([car(1), car(2)]);
    expect(first).toBe(JSON.stringify(CarsResponse.parse([car(1), car(2)])));
    expect(cache.json([car(1), car(2)])).toBe(first);
    expect(cache.serialized).toBe(1);

    const changed = cache.json([car(1), car(2, 'online')]);
    expect(JSON.parse(changed)).toEqual([car(1), car(2, 'online')]);
    expect(cache.serialized).toBe(2);
  });

  it('drops what the schema does not declare, like the route serializer', () => {
    const cache = new CachedJson(CarsResponse);
    const json = cache.json([{ ...car(1), secret: 'never sent' } as Car]);
    expect(json).not.toContain('never sent');
  });

  it('refuses an answer the schema rejects', () => {
    const cache = new CachedJson(CarsResponse);
    expect(() => cache.json([{ ...car(1), status: 'lost' } as unknown as Car])).toThrow();
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

describe('CachedJson bodies', () => {
  const fleet = (status: 'online' | 'offline') => Array.from({ length: 12 }, (_, i) => car(i + 1, status));

  it('sends a large body compressed in the best accepted encoding, compressed once per change', () => {
    const cache = new CachedJson(CarsResponse);
    const br = cache.body(fleet('offline'), 'gzip, br');
    expect(br.encoding).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).toEqual(fleet('offline'));
    expect(cache.body(fleet('offline'), 'br').body).toBe(br.body);
    const gzip = cache.body(fleet('offline'), 'gzip');
    expect(gzip.encoding).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString())).toEqual(fleet('offline'));
    const changed = cache.body(fleet('online'), 'br');
    expect(changed.body).not.toBe(br.body);
    expect(JSON.parse(brotliDecompressSync(changed.body).toString())).toEqual(fleet('online'));
  });

  it('sends small bodies, and bodies for clients without a known encoding, as plain JSON', () => {
    const cache = new CachedJson(CarsResponse);
    expect(cache.body([car(1)], 'br')).toEqual({ body: cache.json([car(1)]), encoding: null });
    expect(cache.body(fleet('offline'), undefined)).toEqual({
      body: cache.json(fleet('offline')),
      encoding: null,
    });
  });
});

describe('JsonPerObject', () => {
  it('makes an object’s answer once, and a new object’s afresh', () => {
    const answers = new JsonPerObject(CarsResponse);
    let made = 0;
    const first = Object.freeze({ cars: [car(1)] });
    const answer = () => {
      made += 1;
      return first.cars;
    };
    expect(answers.json(first, answer)).toBe(JSON.stringify([car(1)]));
    expect(answers.json(first, answer)).toBe(JSON.stringify([car(1)]));
    expect(made).toBe(1);
    const replaced = Object.freeze({ cars: [car(1, 'online')] });
    expect(JSON.parse(answers.json(replaced, () => replaced.cars))).toEqual([car(1, 'online')]);
  });
});
