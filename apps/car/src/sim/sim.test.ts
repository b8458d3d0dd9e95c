import { describe, expect, it } from 'vitest';
import { DEFAULT_PHYSICS, stepBody } from './physics.js';
import { type LapEvent, SimCar } from './sim-car.js';
import { createTrack, distanceFromCentre, finishLineCrossing, isOnTrack } from './track.js';

const track = createTrack({ straight: 6, radius: 2, width: 1.2 });

function run(
  input: { throttle: number; steer: number },
  seconds: number,
  start = { ...track.start, speed: 0 },
) {
  let body = start;
  for (let t = 0; t < seconds; t += 1 / 60) body = stepBody(body, input, 1 / 60, track);
  return body;
}

describe('track', () => {
  it('knows the straights, the bends and the grass', () => {
    expect(isOnTrack(track, 0, -2)).toBe(true);
    expect(isOnTrack(track, 0, 2.5)).toBe(true);
    expect(isOnTrack(track, 5, 0)).toBe(true);
    expect(isOnTrack(track, 0, 0)).toBe(false);
    expect(isOnTrack(track, 0, -2.7)).toBe(false);
    expect(isOnTrack(track, 7, 0)).toBe(false);
    expect(distanceFromCentre(track, 3 + 2 * Math.SQRT1_2, 2 * Math.SQRT1_2)).toBeCloseTo(0);
  });

  it('starts the car on the track, behind the line', () => {
    expect(isOnTrack(track, track.start.x, track.start.y)).toBe(true);
    expect(track.start.x).toBeLessThan(0);
  });

  it('detects forward and backward crossings of the finish line segment only', () => {
    expect(finishLineCrossing(track, { x: -0.1, y: -2 }, { x: 0.1, y: -2 })).toBe(1);
    expect(finishLineCrossing(track, { x: 0.1, y: -2 }, { x: -0.1, y: -2 })).toBe(-1);
    expect(finishLineCrossing(track, { x: -0.1, y: 2 }, { x: 0.1, y: 2 })).toBe(0);
    expect(finishLineCrossing(track, { x: -0.3, y: -2 }, { x: -0.1, y: -2 })).toBe(0);
  });

  it('refuses a track narrower than nothing or wider than its bends', () => {
    expect(() => createTrack({ straight: 6, radius: 1, width: 3 })).toThrow(/width/);
  });
});

describe('physics', () => {
  it('throttle moves the car forward along its heading, up to the top speed', () => {
    const body = run({ throttle: 1, steer: 0 }, 2);
    expect(body.x).toBeGreaterThan(track.start.x + 2);
    expect(body.y).toBeCloseTo(track.start.y);
    expect(body.speed).toBeCloseTo(DEFAULT_PHYSICS.maxSpeed);
  });

  it('half throttle aims at half speed', () => {
    expect(run({ throttle: 0.5, steer: 0 }, 2).speed).toBeCloseTo(DEFAULT_PHYSICS.maxSpeed / 2);
  });

  it('positive steer turns right (clockwise), negative left', () => {
    expect(run({ throttle: 0.3, steer: 1 }, 0.5).heading).toBeLessThan(0);
    expect(run({ throttle: 0.3, steer: -1 }, 0.5).heading).toBeGreaterThan(0);
  });

  it('turns on the bicycle-model radius', () => {
    const start = { x: 0, y: -50, heading: 0, speed: 1 };
    const body = stepBody(
      start,
      { throttle: 1 / 3, steer: 1 },
      0.1,
      createTrack({ straight: 100, radius: 50, width: 99 }),
    );
    const expectedYaw = (1 / DEFAULT_PHYSICS.wheelbase) * Math.tan(DEFAULT_PHYSICS.maxSteerAngle) * 0.1;
    expect(body.heading).toBeCloseTo(-expectedYaw);
  });

  it('reverses', () => {
    const body = run({ throttle: -1, steer: 0 }, 1);
    expect(body.speed).toBeLessThan(0);
    expect(body.x).toBeLessThan(track.start.x);
  });

  it('coasts to a stop with the throttle released', () => {
    const moving = run({ throttle: 1, steer: 0 }, 1);
    expect(run({ throttle: 0, steer: 0 }, 3, moving).speed).toBe(0);
  });

  it('slows down off the track', () => {
    const grass = { x: 0, y: 0, heading: 0, speed: 3 };
    const body = run({ throttle: 1, steer: 0 }, 0.5, grass);
    expect(isOnTrack(track, body.x, body.y)).toBe(false);
    expect(body.speed).toBeLessThanOrEqual(DEFAULT_PHYSICS.offTrackMaxSpeed);
  });
});

describe('SimCar', () => {
  it('counts a lap once per forward pass, not when rocking over the line', () => {
    const car = new SimCar(track);
    const laps: LapEvent[] = [];
    car.on('lap', (event) => laps.push(event));
    car.setInput(0.5, 0);
    for (let i = 0; i < 60 && car.state.x < 0.2; i += 1) car.step(1 / 60);
    expect(laps).toHaveLength(1);
    expect(car.state.lapCrossings).toBe(1);
    car.setInput(-1, 0);
    for (let i = 0; i < 120 && car.state.x > -0.3; i += 1) car.step(1 / 60);
    expect(car.state.lapCrossings).toBe(0);
    car.setInput(1, 0);
    for (let i = 0; i < 120 && car.state.x < 0.3; i += 1) car.step(1 / 60);
    expect(car.state.lapCrossings).toBe(1);
    expect(laps).toHaveLength(1);
  });

  it('exposes its state and drains its battery while driving', () => {
    const car = new SimCar(track);
    car.setInput(1, -0.05);
    for (let i = 0; i < 60; i += 1) car.step(1 / 60);
    const state = car.state;
    expect(state).toMatchObject({ throttle: 1, steer: -0.05, onTrack: true });
    expect(state.speed).toBeGreaterThan(2);
    expect(state.battery).toBeLessThan(100);
    expect(state.battery).toBeGreaterThan(99);
  });
});
