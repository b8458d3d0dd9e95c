import { DEFAULT_CAR_CONFIG } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DriveBackend } from './backend.js';
import { Driver } from './driver.js';

/** A backend that remembers what the motors were told last. */
function recordingBackend() {
  const calls: string[] = [];
  const backend: DriveBackend & { state: { throttle: number; steer: number }; calls: string[] } = {
    state: { throttle: Number.NaN, steer: Number.NaN },
    calls,
    apply(throttle, steer) {
      this.state = { throttle, steer };
      calls.push(`apply ${throttle} ${steer}`);
    },
    neutral() {
      this.state = { throttle: 0, steer: 0 };
      calls.push('neutral');
    },
    close: async () => {},
  };
  return backend;
}

describe('Driver and deadman', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup() {
    const backend = recordingBackend();
    const log: string[] = [];
    const driver = new Driver({
      backend,
      // Fast ramps so the tests read the shaped command, not the slew.
      slew: { throttlePerSecond: 1000, steerPerSecond: 1000 },
      log: (line) => log.push(line),
      now: () => Date.now(),
    });
    return { backend, driver, log };
  }

  it('is neutral at start-up', () => {
    const { backend, driver } = setup();
    driver.start();
    expect(backend.calls).toEqual(['neutral']);
  });

  it('applies a drive, keeps driving through 499 ms of silence, neutral at 500 ms', () => {
    const { backend, driver, log } = setup();
    driver.start();
    driver.heard();
    driver.drive(0.5, -0.2);
    expect(backend.state).toEqual({ throttle: 0.5, steer: -0.2 });
    vi.advanceTimersByTime(499);
    expect(backend.state).toEqual({ throttle: 0.5, steer: -0.2 });
    vi.advanceTimersByTime(1);
    expect(backend.state).toEqual({ throttle: 0, steer: 0 });
    expect(backend.calls.at(-1)).toBe('neutral');
    expect(log.at(-1)).toMatch(/deadman/);
  });

  it('any message re-arms the deadman (the heartbeat)', () => {
    const { backend, driver } = setup();
    driver.start();
    driver.heard();
    driver.drive(0.5, 0);
    for (let i = 0; i < 10; i += 1) {
      vi.advanceTimersByTime(400);
      driver.heard();
    }
    expect(backend.state.throttle).toBe(0.5);
  });

  it('goes neutral on stop and on a closed socket, immediately', () => {
    const { backend, driver } = setup();
    driver.start();
    driver.heard();
    driver.drive(1, 1);
    driver.neutral('stop from the server');
    expect(backend.state).toEqual({ throttle: 0, steer: 0 });
    driver.drive(1, 1);
    driver.disconnected();
    expect(backend.state).toEqual({ throttle: 0, steer: 0 });
    vi.advanceTimersByTime(1000);
    expect(backend.calls.at(-1)).toBe('neutral');
  });

  it('the deadman neutral is not slewed', () => {
    const backend = recordingBackend();
    const driver = new Driver({
      backend,
      slew: { throttlePerSecond: 0.1, steerPerSecond: 0.1 },
      now: () => Date.now(),
    });
    driver.start();
    driver.heard();
    driver.drive(1, 0);
    for (let i = 0; i < 50; i += 1) {
      vi.advanceTimersByTime(100);
      driver.heard();
    }
    expect(backend.state.throttle).toBeGreaterThan(0.4);
    vi.advanceTimersByTime(500);
    expect(backend.state.throttle).toBe(0);
  });

  it('ramps with the slew limiter through its control loop', () => {
    const backend = recordingBackend();
    const driver = new Driver({
      backend,
      slew: { throttlePerSecond: 4, steerPerSecond: 8 },
      now: () => Date.now(),
    });
    driver.start();
    driver.heard();
    driver.drive(1, 0);
    expect(backend.state.throttle).toBeCloseTo(0.08);
    vi.advanceTimersByTime(100);
    expect(backend.state.throttle).toBeCloseTo(0.48);
    vi.advanceTimersByTime(200);
    expect(backend.state.throttle).toBe(1);
  });

  it('applies a new config at once to the command being driven', () => {
    const { backend, driver } = setup();
    driver.start();
    driver.heard();
    driver.drive(1, 0);
    driver.setConfig({ ...DEFAULT_CAR_CONFIG, forwardSpeedPercent: 30, trimValue: 10 });
    expect(backend.state.throttle).toBeCloseTo(0.3);
    expect(backend.state.steer).toBeCloseTo(0.1);
  });
});
