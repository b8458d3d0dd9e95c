import { describe, expect, it } from 'vitest';
import {
  clockVerdict,
  exitCode,
  fail,
  formatLine,
  pass,
  percentile,
  rateOk,
  skip,
  summaryLine,
  uplinkVerdict,
} from './format.js';

describe('doctor lines', () => {
  it('shows ✓ with the measure, ✗ with the reason and the fix, – with why the check does not apply', () => {
    expect(formatLine(1, 'server reachable', pass('https://race.example.com ready (35 ms)'))).toBe(
      '✓ 1 server reachable: https://race.example.com ready (35 ms)',
    );
    expect(formatLine(2, 'car socket', fail('car secret refused (HTTP 401)', 'check CAR_SECRET'))).toBe(
      '✗ 2 car socket: car secret refused (HTTP 401) → check CAR_SECRET',
    );
    expect(formatLine(6, 'camera', skip('--camera none'))).toBe('– 6 camera: skipped, --camera none');
  });

  it('exits 0 only when nothing failed; a skipped check is no failure', () => {
    expect(exitCode([pass('a'), skip('b')])).toBe(0);
    expect(exitCode([pass('a'), fail('b', 'c'), pass('d')])).toBe(1);
    expect(summaryLine([pass('a'), skip('b')])).toBe('ready: every check passed (1 skipped)');
    expect(summaryLine([pass('a'), fail('b', 'c')])).toBe(
      'not ready: 1 of 2 checks failed; fix them and run the doctor again',
    );
  });
});

describe('clock verdict', () => {
  // The Date header says 12:00:00, so the server's time was in [12:00:00, 12:00:01) when it answered.
  const date = Date.parse('2026-12-07T12:00:00Z');

  it('passes a car within 2 s of the server, saying ahead or behind', () => {
    expect(clockVerdict(date, date + 400, date + 600)).toMatchObject({
      status: 'pass',
      detail: "car's clock 0.0 s ahead of the server's (±0.6 s)",
    });
    expect(clockVerdict(date, date - 1_600, date - 1_400).detail).toBe(
      "car's clock 2.0 s behind the server's (±0.6 s)",
    );
  });

  it('fails a car more than 2 s off, with the fix', () => {
    const verdict = clockVerdict(date, date + 3_000, date + 3_020);
    expect(verdict.status).toBe('fail');
    expect(verdict.detail).toContain("car's clock 2.5 s ahead");
    expect(verdict.fix).toContain('timedatectl set-ntp true');
    expect(clockVerdict(date, date - 2_100, date - 2_000).status).toBe('fail');
  });
});

describe('rates and the uplink', () => {
  it('keeps up at 80 % of the configured rate', () => {
    expect(rateOk(24, 30)).toBe(true);
    expect(rateOk(23.9, 30)).toBe(false);
  });

  it('takes percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('passes ≤ 5 % loss with p99 ≤ 300 ms, and says which limit a bad link breaks', () => {
    const good = [...Array(95).fill(40), ...Array(5).fill(300)];
    expect(uplinkVerdict(100, good, 'pings')).toEqual(
      pass('round trip p50 40 ms, p99 300 ms, loss 0.0 % (0 of 100 pings)'),
    );
    expect(uplinkVerdict(100, Array(95).fill(40), 'pings').status).toBe('pass');
    const lossy = uplinkVerdict(100, Array(94).fill(40), 'pings');
    expect(lossy.status).toBe('fail');
    expect(lossy.detail).toBe('round trip p50 40 ms, p99 40 ms, loss 6.0 % (6 of 100 pings): loss above 5 %');
    const slow = uplinkVerdict(100, [...Array(98).fill(40), 301, 301], 'pings');
    expect(slow.detail).toContain('p99 above 300 ms');
    expect(uplinkVerdict(30, [], 'pings').detail).toBe(
      'no answer, loss 100.0 % (30 of 30 pings): loss above 5 %, p99 above 300 ms',
    );
  });
});
