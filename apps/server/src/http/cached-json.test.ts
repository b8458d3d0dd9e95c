import { type Car, CarsResponse } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { CachedJson, sameJsonValue } from './cached-json.js';

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
