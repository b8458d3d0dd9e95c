/**
 * The admin's car list shows a car's last telemetry whichever instance answers (issue 15): the
 * car's agent is on A, nobody drives it, and the admin asks B (which neither holds the car nor
 * drives it, so its relay knows nothing of the car's telemetry).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTwoInstances, type TwoInstances } from '../test/instances.js';
import { addSimCar, apiCall, killProcess, lineAppears } from '../test/process.js';

interface ListedTelemetry {
  speed?: number;
  battery?: number;
  at: string;
}

describe('the admin car list across instances', () => {
  let pair: TwoInstances;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    pair = await startTwoInstances();
  }, 120_000);
  afterEach(async () => {
    for (const child of children.splice(0)) await killProcess(child);
  });
  afterAll(async () => {
    await pair?.dispose();
  });

  /** The car's last telemetry in the admin's list on `base` (null when it has none). */
  async function listedTelemetry(base: string, carId: number) {
    const cars = await apiCall<{ id: number; last_telemetry: ListedTelemetry | null }[]>(
      base,
      'GET',
      '/admin/cars',
      undefined,
      pair.adminToken,
    );
    return cars.find((car) => car.id === carId)?.last_telemetry ?? null;
  }

  it('shows on B the telemetry of a car whose agent is on A, nobody driving it', async () => {
    const { carId, agent } = await addSimCar(pair.a.base, pair.adminToken, 'Telemetry on A');
    children.push(agent);
    await lineAppears(agent, /welcomed as car/);

    const onB = await vi.waitFor(
      async () => {
        const telemetry = await listedTelemetry(pair.b.base, carId);
        expect(telemetry).not.toBeNull();
        return telemetry;
      },
      { timeout: 5_000, interval: 200 },
    );
    expect(onB?.speed).toBe(0);
    expect(onB?.battery).toBeGreaterThan(0);
    expect(Math.abs(Date.now() - Date.parse(onB?.at ?? ''))).toBeLessThan(3_000);

    // It keeps up: B shows a newer record as soon as there is one (at most one write a second per car).
    const latestAt = async () => Date.parse((await listedTelemetry(pair.b.base, carId))?.at ?? '');
    await expect.poll(latestAt, { timeout: 5_000, interval: 200 }).toBeGreaterThan(Date.parse(onB?.at ?? ''));
    const later = await listedTelemetry(pair.b.base, carId);
    expect(Math.abs(Date.now() - Date.parse(later?.at ?? ''))).toBeLessThan(2_500);
  }, 60_000);
});
