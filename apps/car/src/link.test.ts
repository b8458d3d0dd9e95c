import { describe, expect, it } from 'vitest';
import { carSocketUrl } from './link.js';

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
