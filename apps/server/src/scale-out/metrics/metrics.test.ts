/**
 * GET /metrics on its own port (METRICS_PORT=0: a free one), read over real HTTP from a real app:
 * Prometheus's text format, the metrics docs/operations.md lists, the token, nothing on the
 * public port, and a drive through the relay counted and timed; and the operators' GET /health
 * there (the details the public /api/health no longer gives).
 */

import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../paths.js';
import { buildTestApp, createTestEnvironment, TEST_DB_KIND } from '../../test/app.js';
import { parseExposition, sampleValue } from '../../test/prometheus.js';
import {
  connectCar,
  createCar,
  driveCar,
  type ListeningTestApp,
  startListeningTestApp,
} from '../../test/sockets.js';

const metricsUrl = (testApp: ListeningTestApp) =>
  `http://127.0.0.1:${testApp.app.metricsServer?.port}/metrics`;

async function scrape(testApp: ListeningTestApp, headers: Record<string, string> = {}) {
  const response = await fetch(metricsUrl(testApp), { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(await response.text());
}

describe('GET /metrics', () => {
  let testApp: ListeningTestApp;
  beforeAll(async () => {
    testApp = await startListeningTestApp({ METRICS_PORT: '0' });
  });
  afterAll(() => testApp?.close());

  it('listens on a port of its own, on loopback, and answers Prometheus text with the listed metrics', async () => {
    const port = testApp.app.metricsServer?.port;
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(Number(new URL(`http://${testApp.host}`).port));
    const { types, samples } = await scrape(testApp);
    expect(Object.fromEntries([...types].filter(([name]) => name.startsWith('telerace_')))).toEqual({
      telerace_info: 'gauge',
      telerace_eventloop_utilization_ratio: 'gauge',
      telerace_sockets_open: 'gauge',
      telerace_socket_messages_received_total: 'counter',
      telerace_socket_messages_sent_total: 'counter',
      telerace_socket_messages_dropped_total: 'counter',
      telerace_relay_latency_seconds: 'histogram',
      telerace_relay_remote_drives_total: 'counter',
      telerace_drive_channel_worker_exits_total: 'counter',
      telerace_drive_channel_offers_total: 'counter',
      telerace_drive_channel_peers: 'gauge',
      telerace_drive_channel_candidates_total: 'counter',
      telerace_leader: 'gauge',
      telerace_race_state: 'gauge',
      telerace_raffle_entries: 'gauge',
      telerace_janus_up: 'gauge',
      telerace_janus_last_answer_age_seconds: 'gauge',
      telerace_video_ingest_packets_total: 'counter',
      telerace_video_ingest_thread_restarts_total: 'counter',
      telerace_integration_state: 'gauge',
      telerace_car_drive_channel_open: 'gauge',
      telerace_car_link_rtt_seconds: 'gauge',
      telerace_car_drive_channel_loss_ratio: 'gauge',
      telerace_car_deadman_trips_today: 'gauge',
      telerace_car_video_fps: 'gauge',
      telerace_car_video_kbps: 'gauge',
      ...(TEST_DB_KIND === 'postgres'
        ? { telerace_db_pool_connections: 'gauge', telerace_db_pool_waiting: 'gauge' }
        : {}),
    });
    // prom-client's defaults: event-loop lag, heap, process.
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'process_cpu_seconds_total',
    ])
      expect(types.has(name), name).toBe(true);
    expect(sampleValue(samples, 'telerace_info', { database: TEST_DB_KIND })).toBe(1);
    const utilization = sampleValue(samples, 'telerace_eventloop_utilization_ratio') ?? -1;
    expect(utilization).toBeGreaterThanOrEqual(0);
    expect(utilization).toBeLessThanOrEqual(1);
    expect(sampleValue(samples, 'telerace_race_state', { state: 'idle' })).toBe(1);
    // One process without REDIS_URL: always the leader.
    expect(sampleValue(samples, 'telerace_leader')).toBe(1);
    expect(sampleValue(samples, 'telerace_relay_remote_drives_total', { direction: 'sent' })).toBe(0);
    expect(sampleValue(samples, 'telerace_race_state', { state: 'active' })).toBe(0);
    // VIDEO=off in tests: no Janus, and none ever answered.
    expect(sampleValue(samples, 'telerace_janus_up')).toBe(0);
    expect(sampleValue(samples, 'telerace_janus_last_answer_age_seconds')).toBe(Number.POSITIVE_INFINITY);
    expect(
      sampleValue(samples, 'telerace_integration_state', { integration: 'twitch', state: 'not_configured' }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'telerace_integration_state', { integration: 'twitch', state: 'connected' }),
    ).toBe(0);
    for (const kind of ['car', 'controller', 'event', 'video'])
      expect(sampleValue(samples, 'telerace_sockets_open', { kind }), kind).toBe(0);
    expect(
      sampleValue(samples, 'telerace_socket_messages_dropped_total', { kind: 'car', cause: 'invalid_json' }),
    ).toBe(0);
    expect(sampleValue(samples, 'telerace_relay_latency_seconds_bucket', { le: '+Inf' })).toBe(0);
    // No raffle is open: no entries at all.
    expect(samples.filter((sample) => sample.name === 'telerace_raffle_entries')).toEqual([]);
    if (TEST_DB_KIND === 'postgres')
      expect(sampleValue(samples, 'telerace_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
  });

  it('answers the health details at GET /health: database kind, version, the database reachable', async () => {
    const response = await fetch(metricsUrl(testApp).replace('/metrics', '/health'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      status: 'ok',
      db: TEST_DB_KIND,
      version: SERVER_VERSION,
      database: { status: 'reachable' },
    });
  });

  it('is not on the public port, and its own port answers nothing but GET /metrics and /health', async () => {
    const response = await fetch(`http://${testApp.host}/metrics`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await fetch(metricsUrl(testApp).replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(metricsUrl(testApp).replace('/metrics', '/api/health'))).status).toBe(404);
    const post = await fetch(metricsUrl(testApp), { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('counts a drive through the relay: sockets open, messages in and out, and its latency', async () => {
    const before = (await scrape(testApp)).samples;
    const { car, controller } = await driveCar(testApp.app, testApp.host);
    await controller.nextOfType('car-status');
    for (const throttle of [0.25, 0.5, 0.75]) {
      controller.send({ type: 'drive', throttle, steer: 0 });
      await car.next((message) => message.type === 'drive' && message.throttle === throttle);
    }
    const after = (await scrape(testApp)).samples;
    const delta = (name: string, labels: Record<string, string> = {}) =>
      (sampleValue(after, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);
    expect(sampleValue(after, 'telerace_sockets_open', { kind: 'car' })).toBe(1);
    expect(sampleValue(after, 'telerace_sockets_open', { kind: 'controller' })).toBe(1);
    expect(delta('telerace_socket_messages_received_total', { kind: 'controller' })).toBe(3);
    // hello from the car; welcome and the three drives (at least) to it.
    expect(delta('telerace_socket_messages_received_total', { kind: 'car' })).toBeGreaterThanOrEqual(1);
    expect(delta('telerace_socket_messages_sent_total', { kind: 'car' })).toBeGreaterThanOrEqual(4);
    expect(delta('telerace_relay_latency_seconds_count')).toBe(3);
    // Driver and car on this instance: nothing crossed.
    expect(delta('telerace_relay_remote_drives_total', { direction: 'sent' })).toBe(0);
    expect(delta('telerace_relay_remote_drives_total', { direction: 'forwarded' })).toBe(0);
    expect(delta('telerace_relay_latency_seconds_bucket', { le: '+Inf' })).toBe(3);
    const sum = delta('telerace_relay_latency_seconds_sum');
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(3);
    // Buckets are cumulative: never decreasing up to +Inf.
    const buckets = after.filter((sample) => sample.name === 'telerace_relay_latency_seconds_bucket');
    expect(buckets.map((sample) => sample.value)).toEqual(
      [...buckets.map((sample) => sample.value)].sort((a, b) => a - b),
    );

    await Promise.all([controller.close(), car.close()]);
    await expect
      .poll(async () =>
        sampleValue((await scrape(testApp)).samples, 'telerace_sockets_open', { kind: 'car' }),
      )
      .toBe(0);
  });

  it("shows each connected car's link as the car reports it, and nothing of a car gone (issue 42)", async () => {
    const driving = await createCar(testApp.app, 'Link car');
    const car = await connectCar(testApp.host, driving.carId, driving.secret);
    car.send({
      type: 'telemetry',
      fps: 24,
      kbps: 650,
      link: { channel: true, rttMs: 84, lossPercent: 3.5, deadmanTrips: 2 },
    });
    const labels = { car_id: String(driving.carId) };
    await expect
      .poll(async () => sampleValue((await scrape(testApp)).samples, 'telerace_car_link_rtt_seconds', labels))
      .toBe(0.084);
    const { samples } = await scrape(testApp);
    expect(sampleValue(samples, 'telerace_car_drive_channel_open', labels)).toBe(1);
    expect(sampleValue(samples, 'telerace_car_drive_channel_loss_ratio', labels)).toBe(0.035);
    expect(sampleValue(samples, 'telerace_car_deadman_trips_today', labels)).toBe(2);
    expect(sampleValue(samples, 'telerace_car_video_fps', labels)).toBe(24);
    expect(sampleValue(samples, 'telerace_car_video_kbps', labels)).toBe(650);
    // The link ping is answered on the car socket.
    car.send({ type: 'link-ping', t: 42 });
    expect(await car.next((message) => message.type === 'link-pong')).toEqual({ type: 'link-pong', t: 42 });
    await car.close();
    await expect
      .poll(async () => sampleValue((await scrape(testApp)).samples, 'telerace_car_link_rtt_seconds', labels))
      .toBeUndefined();
  });
});

// Two apps on one PostgreSQL and one Redis namespace (issue 15): only the advisory lock's holder leads.
describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-for-the-test';
  let testApp: ListeningTestApp;
  beforeAll(async () => {
    testApp = await startListeningTestApp({ METRICS_PORT: '0', METRICS_TOKEN: token });
  });
  afterAll(() => testApp?.close());

  it('answers 401 without the bearer token or with another, and the metrics with it', async () => {
    const missing = await fetch(metricsUrl(testApp));
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await missing.text()).not.toContain('telerace_');
    for (const authorization of [`Bearer ${token}x`, 'Bearer short', token, `Basic ${token}`])
      expect((await fetch(metricsUrl(testApp), { headers: { authorization } })).status, authorization).toBe(
        401,
      );
    const { types } = await scrape(testApp, { authorization: `Bearer ${token}` });
    expect(types.get('telerace_sockets_open')).toBe('gauge');
    const health = metricsUrl(testApp).replace('/metrics', '/health');
    expect((await fetch(health)).status).toBe(401);
    const details = await fetch(health, { headers: { authorization: `Bearer ${token}` } });
    expect(details.status).toBe(200);
    expect(await details.json()).toMatchObject({ db: TEST_DB_KIND, version: SERVER_VERSION });
  });
});

describe('without METRICS_PORT', () => {
  let testApp: ListeningTestApp;
  beforeAll(async () => {
    testApp = await startListeningTestApp();
  });
  afterAll(() => testApp?.close());

  it('runs no metrics server', () => {
    expect(testApp.app.metricsServer).toBeNull();
  });
});

describe('a metrics port already taken', () => {
  it('fails the start-up with the error', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const environment = await createTestEnvironment({ METRICS_PORT: String(port) });
    try {
      const { app } = await buildTestApp(environment, { waitForMigrations: false });
      await expect(app.migrated()).rejects.toThrow(/EADDRINUSE/);
      await app.close();
    } finally {
      taken.close();
      await environment.dispose();
    }
  });
});
