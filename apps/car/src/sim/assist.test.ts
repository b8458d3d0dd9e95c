/**
 * The steering assist: holding only the throttle, an assisted simulated car goes round and laps;
 * without it the car leaves the track; backing over the line never counts as a lap.
 */
import { describe, expect, it } from 'vitest';
import { assistSteer, centreLineLength, centreLinePoint, centreLineProgress } from './assist.js';
import { type LapEvent, SIM_HZ, SimCar } from './sim-car.js';
import { createTrack, distanceFromCentre } from './track.js';

const track = createTrack({ straight: 6, radius: 2, width: 1.2 });
const DT = 1 / SIM_HZ;

/** Drives `car` for `seconds` of simulated time; returns its laps and whether it ever left the track. */
function drive(car: SimCar, throttle: number, steer: number, seconds: number) {
  const laps: LapEvent[] = [];
  const onLap = (lap: LapEvent) => laps.push(lap);
  car.on('lap', onLap);
  car.setInput(throttle, steer);
  let leftTrack = false;
  let worst = 0;
  for (let t = 0; t < seconds; t += DT) {
    car.step(DT);
    const { x, y, onTrack } = car.state;
    if (!onTrack) leftTrack = true;
    worst = Math.max(worst, distanceFromCentre(track, x, y));
  }
  car.off('lap', onLap);
  return { laps, leftTrack, worst };
}

describe('centre line', () => {
  it('maps arc length to points on the centre line and back', () => {
    const total = centreLineLength(track);
    expect(total).toBeCloseTo(12 + 4 * Math.PI);
    for (let s = 0; s < total; s += 0.37) {
      const point = centreLinePoint(track, s);
      expect(distanceFromCentre(track, point.x, point.y)).toBeCloseTo(0, 9);
      expect(centreLineProgress(track, point.x, point.y)).toBeCloseTo(s, 6);
    }
    expect(centreLinePoint(track, total + 1)).toEqual(centreLinePoint(track, 1));
  });

  it('steers left in the bend the car drives into, nothing on a straight it follows', () => {
    expect(assistSteer(track, { x: -1, y: -2, heading: 0 })).toBeCloseTo(0, 6);
    // Heading straight on at the start of the right-hand bend: the line curves left.
    expect(assistSteer(track, { x: 3.2, y: -2, heading: 0 })).toBeLessThan(0);
    // Drifted toward the outside of the bottom straight (below the line): steer left, back up.
    expect(assistSteer(track, { x: 0, y: -2.4, heading: 0 })).toBeLessThan(0);
    expect(assistSteer(track, { x: 0, y: -1.6, heading: 0 })).toBeGreaterThan(0);
  });
});

describe('steering assist', () => {
  it('with throttle held and no steer, the car stays on the track and laps, one lap event per forward pass', () => {
    const car = new SimCar(track, undefined, { assist: true });
    const { laps, leftTrack, worst } = drive(car, 1, 0, 30);
    expect(leftTrack).toBe(false);
    expect(worst).toBeLessThan(track.width / 2);
    expect(laps.length).toBeGreaterThanOrEqual(2);
    expect(laps.map((lap) => lap.laps)).toEqual(laps.map((_, index) => index + 1));
  });

  it('adds the driver’s steer on top: a hard right still leaves the track', () => {
    const car = new SimCar(track, undefined, { assist: true });
    expect(drive(car, 1, 1, 10).leftTrack).toBe(true);
  });

  it('without the assist, throttle alone runs off the end of the straight and never laps', () => {
    const car = new SimCar(track, undefined, { assist: false });
    const { laps, leftTrack } = drive(car, 1, 0, 30);
    expect(leftTrack).toBe(true);
    expect(laps.length).toBeLessThanOrEqual(1);
    expect(car.state.lapCrossings).toBeLessThanOrEqual(1);
  });

  it('reversing back over the line and crossing it again forward is no new lap', () => {
    const car = new SimCar(track, undefined, { assist: true });
    // Forward over the line once (the start is 1 m behind it).
    const first = drive(car, 1, 0, 1);
    expect(first.laps).toHaveLength(1);
    // Brake and back up over the line, then forward over it again.
    const back = drive(car, -1, 0, 2);
    expect(car.state.x).toBeLessThan(0);
    const again = drive(car, 1, 0, 1.5);
    expect(car.state.x).toBeGreaterThan(0);
    expect([...back.laps, ...again.laps]).toEqual([]);
  });
});
