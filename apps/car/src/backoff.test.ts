import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.js';
import { carSocketUrl } from './link.js';

describe('Backoff', () => {
  it('doubles from 100 ms and caps at 8000 ms', () => {
    const backoff = new Backoff();
    const delays = Array.from({ length: 10 }, () => backoff.next());
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 8000, 8000, 8000]);
  });

  it('starts again from 100 ms after a reset (a welcome)', () => {
    const backoff = new Backoff();
    for (let i = 0; i < 5; i += 1) backoff.next();
    backoff.reset();
    expect([backoff.next(), backoff.next()]).toEqual([100, 200]);
  });

  it('max() is the cap, without disturbing the sequence', () => {
    const backoff = new Backoff();
    expect(backoff.max()).toBe(8000);
    expect(backoff.next()).toBe(100);
  });
});

describe('carSocketUrl', () => {
  it('turns http into ws and https into wss, keeping a path prefix', () => {
    expect(carSocketUrl('http://localhost:3000', '7').href).toBe(
      'ws://localhost:3000/rcsocket?type=car&car=7',
    );
    expect(carSocketUrl('https://race.example.com/telerace/', '12').href).toBe(
      'wss://race.example.com/telerace/rcsocket?type=car&car=12',
    );
    expect(carSocketUrl('wss://race.example.com', '1').href).toBe(
      'wss://race.example.com/rcsocket?type=car&car=1',
    );
  });

  it('refuses other schemes', () => {
    expect(() => carSocketUrl('ftp://x', '1')).toThrow(/http/);
  });
});
