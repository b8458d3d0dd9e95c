/**
 * What GET /metrics shows, read from the services when Prometheus scrapes (collect callbacks):
 * nothing here runs per message. The hot paths keep their own plain counters (sockets/
 * socket-meter.ts, the relay's LatencyHistogram); this turns them into Prometheus metrics.
 * docs/operations.md "Monitoring and alerts" lists them with example alerts.
 */
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import {
  INTEGRATION_IDS,
  INTEGRATION_STATES,
  type IntegrationId,
  type IntegrationStatus,
  PLATFORMS,
  type Platform,
  RACE_STATUSES,
  type RaceStatus,
  type Telemetry,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import type { Database } from '../../db/client.js';
import type { DriveChannelCounters } from '../../modules/control/drive-channel-thread.js';
import type { IngestFigures } from '../../modules/video/ingest/video-ingest.js';
import type { DropCounters } from '../../sockets/message-guard.js';
import type { SocketMeter } from '../../sockets/socket-meter.js';
import type { LatencyHistogram } from './latency-histogram.js';

/** The services the metrics are read from (narrowed to what is read, so tests can see the list). */
export interface MetricsSources {
  version: string;
  database: Pick<Database, 'kind' | 'pool'>;
  sockets: SocketMeter;
  relay: {
    driveLatency: LatencyHistogram;
    remoteDrives: { sent: number; forwarded: number };
    driveChannels: { counters: DriveChannelCounters; openPeers: number };
    /** Each car connected to this instance, with its last telemetry (issue 42: its link). */
    carLinks(): Iterable<[number, Telemetry]>;
  };
  /** Whether this instance runs the leader-only work (scale-out/leadership.ts; one process: always). */
  leadership: { readonly leading: boolean };
  race: { state(): { race_status: RaceStatus } };
  raffles: { openEntriesByPlatform(): Promise<Record<Platform, number> | null> };
  /** What the video service's periodic checks saw of Janus. */
  video: {
    janusHealth(): { up: boolean; lastAnswerAgeSeconds: number };
    ingest: { restarts: number; allFigures(): Iterable<IngestFigures> };
  };
  integrations: { status(id: IntegrationId): Pick<IntegrationStatus, 'state'> };
  log: FastifyBaseLogger;
}

/** The drop counters under the names Prometheus labels carry. */
const DROP_CAUSES: readonly [keyof DropCounters, string][] = [
  ['invalidJson', 'invalid_json'],
  ['unknownType', 'unknown_type'],
  ['invalidMessage', 'invalid_message'],
  ['rateLimited', 'rate_limited'],
  ['slowReaders', 'slow_reader'],
];

/**
 * A counter whose value lives elsewhere (a plain number bumped on a hot path): set to that value
 * at each scrape. Prometheus only sees a total that never goes down while the process lives.
 */
function mirroredCounter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => Iterable<[Record<L, string>, number]>,
): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels, value);
    },
  });
}

/** A gauge read at each scrape; `read` returns its values by labels (none: the gauge shows nothing). */
function readGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => Iterable<[Record<L, string>, number]> | Promise<Iterable<[Record<L, string>, number]>>,
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      const values = await read();
      this.reset();
      for (const [labels, value] of values) this.set(labels, value);
    },
  });
}

/**
 * The relay's LatencyHistogram as a Prometheus histogram. prom-client's own Histogram cannot be
 * given counts made elsewhere, so this is a metric object of the shape its registry reads
 * (`get()` → name, help, type, values), as prom-client's own metrics are.
 */
function latencyHistogramMetric(name: string, help: string, histogram: LatencyHistogram): Metric {
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const cumulative = histogram.cumulative();
      const bounds: (number | string)[] = [...histogram.bounds, '+Inf'];
      return {
        name,
        help,
        type: 'histogram',
        aggregator: 'sum',
        values: [
          ...bounds.map((le, index) => ({
            metricName: `${name}_bucket`,
            labels: { le },
            value: cumulative[index] ?? 0,
          })),
          { metricName: `${name}_sum`, labels: {}, value: histogram.sum },
          { metricName: `${name}_count`, labels: {}, value: histogram.count },
        ],
      };
    },
    reset: () => undefined,
  };
  return metric as unknown as Metric;
}

export function metricsRegistry(sources: MetricsSources): Registry {
  const registry = new Registry();
  // Process, heap, GC and event-loop lag (nodejs_eventloop_lag_*), under their usual names.
  collectDefaultMetrics({ register: registry });

  readGauge(
    registry,
    'telerace_info',
    'This server: its version and database kind',
    ['version', 'database'],
    () => [[{ version: sources.version, database: sources.database.kind }, 1]],
  );

  let lastUtilization: EventLoopUtilization = performance.eventLoopUtilization();
  readGauge(
    registry,
    'telerace_eventloop_utilization_ratio',
    'Share of time the event loop was busy since the previous scrape (0–1)',
    [],
    () => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, lastUtilization);
      lastUtilization = now;
      return [[{}, since.utilization]];
    },
  );

  const kinds = () => [...sources.sockets.kinds()];
  readGauge(registry, 'telerace_sockets_open', 'Open WebSockets by kind', ['kind'], () =>
    kinds().map(([kind, traffic]) => [{ kind }, traffic.open]),
  );
  mirroredCounter(
    registry,
    'telerace_socket_messages_received_total',
    'Messages read from clients by socket kind (including those then dropped)',
    ['kind'],
    () => kinds().map(([kind, traffic]) => [{ kind }, traffic.received]),
  );
  mirroredCounter(
    registry,
    'telerace_socket_messages_sent_total',
    'Messages queued to clients by socket kind (the video proxy: not counted)',
    ['kind'],
    () => kinds().map(([kind, traffic]) => [{ kind }, traffic.sent]),
  );
  mirroredCounter(
    registry,
    'telerace_socket_messages_dropped_total',
    'Messages dropped by socket kind and cause; slow_reader counts sockets cut for not reading',
    ['kind', 'cause'],
    () =>
      kinds().flatMap(([kind, { dropped }]) =>
        dropped
          ? DROP_CAUSES.map(([field, cause]): [{ kind: string; cause: string }, number] => [
              { kind, cause },
              dropped[field],
            ])
          : [],
      ),
  );
  registry.registerMetric(
    latencyHistogramMetric(
      'telerace_relay_latency_seconds',
      "Time from a driver's drive message arriving to its forwarding to the car's socket",
      sources.relay.driveLatency,
    ),
  );

  mirroredCounter(
    registry,
    'telerace_relay_remote_drives_total',
    'Drives that crossed instances: sent to a car held elsewhere, forwarded here to a held car (heartbeat repeats included)',
    ['direction'],
    () => [
      [{ direction: 'sent' }, sources.relay.remoteDrives.sent],
      [{ direction: 'forwarded' }, sources.relay.remoteDrives.forwarded],
    ],
  );
  const { driveChannels } = sources.relay;
  mirroredCounter(
    registry,
    'telerace_drive_channel_worker_exits_total',
    "Ends of the drive channel worker thread (each closes every driver's channel; it restarts after a backoff)",
    [],
    () => [[{}, driveChannels.counters.workerExits]],
  );
  mirroredCounter(
    registry,
    'telerace_drive_channel_offers_total',
    "Drivers' drive channel offers by outcome: answered, refused (the driver's), busy (too often), unavailable and no_candidates (the server's: no address to offer)",
    ['outcome'],
    () => {
      const { answered, refused, busy, unavailable, noCandidates } = driveChannels.counters.offers;
      return [
        [{ outcome: 'answered' }, answered],
        [{ outcome: 'refused' }, refused],
        [{ outcome: 'busy' }, busy],
        [{ outcome: 'unavailable' }, unavailable],
        [{ outcome: 'no_candidates' }, noCandidates],
      ];
    },
  );
  readGauge(
    registry,
    'telerace_drive_channel_peers',
    'Drive channel peer connections open in this process (each holds UDP ports)',
    [],
    () => [[{}, driveChannels.openPeers]],
  );
  mirroredCounter(
    registry,
    'telerace_drive_channel_candidates_total',
    "Drivers' remote ICE candidates by verdict (taken, ignored mDNS, over_limit, refused) and refusal reason",
    ['verdict', 'reason'],
    () => {
      const { taken, ignored, overLimit, refused } = driveChannels.counters.candidates;
      return [
        [{ verdict: 'taken', reason: '' }, taken],
        [{ verdict: 'ignored', reason: 'mdns' }, ignored],
        [{ verdict: 'over_limit', reason: '' }, overLimit],
        ...Object.entries(refused).map(([reason, count]): [Record<'verdict' | 'reason', string>, number] => [
          { verdict: 'refused', reason },
          count,
        ]),
      ];
    },
  );
  readGauge(
    registry,
    'telerace_leader',
    '1 while this instance holds the leadership (the race engine, the chat integrations), else 0',
    [],
    () => [[{}, sources.leadership.leading ? 1 : 0]],
  );

  readGauge(registry, 'telerace_race_state', 'The race state: 1 for the current one', ['state'], () => {
    const current = sources.race.state().race_status;
    return RACE_STATUSES.map((state) => [{ state }, state === current ? 1 : 0]);
  });
  // Each connected car's link as it reports it (issue 42; Car Status shows the same figures).
  const carGauge = (name: string, help: string, value: (telemetry: Telemetry) => number | undefined) =>
    readGauge(registry, name, help, ['car_id'], () =>
      [...sources.relay.carLinks()].flatMap(([carId, telemetry]) => {
        const measured = value(telemetry);
        return measured === undefined
          ? []
          : [[{ car_id: String(carId) }, measured] as [{ car_id: string }, number]];
      }),
    );
  carGauge('telerace_car_drive_channel_open', "1 while the car's drive channel is open", (telemetry) =>
    telemetry.link ? Number(telemetry.link.channel) : undefined,
  );
  carGauge('telerace_car_link_rtt_seconds', "The car's link round trip (median, last minute)", (telemetry) =>
    telemetry.link?.rttMs === undefined ? undefined : telemetry.link.rttMs / 1000,
  );
  carGauge(
    'telerace_car_drive_channel_loss_ratio',
    "What the car's drive channel lost over the last minute (0–1)",
    (telemetry) => (telemetry.link?.lossPercent === undefined ? undefined : telemetry.link.lossPercent / 100),
  );
  carGauge(
    'telerace_car_deadman_trips_today',
    'Times the car stopped on its own deadman today',
    (telemetry) => telemetry.link?.deadmanTrips,
  );
  carGauge('telerace_car_video_fps', 'Frames per second the car sends', (telemetry) => telemetry.fps);
  carGauge(
    'telerace_car_video_kbps',
    'Kilobits per second of video the car sends',
    (telemetry) => telemetry.kbps,
  );

  readGauge(
    registry,
    'telerace_raffle_entries',
    'Entries of the open raffle by platform (nothing when no raffle is open)',
    ['platform'],
    async () => {
      try {
        const entries = await sources.raffles.openEntriesByPlatform();
        return entries ? PLATFORMS.map((platform) => [{ platform }, entries[platform]]) : [];
      } catch (error) {
        // A scrape during a database outage still shows everything else.
        sources.log.warn({ err: error }, 'metrics: the raffle entries could not be read');
        return [];
      }
    },
  );

  const pool = sources.database.pool;
  if (pool) {
    readGauge(
      registry,
      'telerace_db_pool_connections',
      'PostgreSQL pool connections: total and idle',
      ['state'],
      () => [
        [{ state: 'total' }, pool.totalCount],
        [{ state: 'idle' }, pool.idleCount],
      ],
    );
    readGauge(
      registry,
      'telerace_db_pool_waiting',
      'Queries waiting for a PostgreSQL pool connection',
      [],
      () => [[{}, pool.waitingCount]],
    );
  }

  readGauge(
    registry,
    'telerace_janus_up',
    "Live video: 1 while Janus answers the server's periodic check (JANUS_CHECK_SECONDS), else 0",
    [],
    () => [[{}, sources.video.janusHealth().up ? 1 : 0]],
  );
  readGauge(
    registry,
    'telerace_janus_last_answer_age_seconds',
    "Seconds since Janus last answered the server's periodic check (+Inf until it first does)",
    [],
    () => [[{}, sources.video.janusHealth().lastAnswerAgeSeconds]],
  );
  // The cars' video as the ingest receives it (issue 43, docs/video.md "The car's uplink").
  const INGEST_OUTCOMES = [
    'forwarded',
    'refused',
    'lost',
    'recovered',
    'retransmitted',
    'unrepaired',
  ] as const;
  mirroredCounter(
    registry,
    'telerace_video_ingest_packets_total',
    "Each connected car's video packets at the ingest: forwarded to Janus, refused (not authenticated: a stranger's, or a replay), lost on the uplink, and of those recovered from parity, retransmitted after a NACK, or unrepaired",
    ['car_id', 'outcome'],
    () =>
      [...sources.video.ingest.allFigures()].flatMap(({ carId, counters }) =>
        INGEST_OUTCOMES.map((outcome): [{ car_id: string; outcome: string }, number] => [
          { car_id: String(carId), outcome },
          counters[outcome],
        ]),
      ),
  );
  mirroredCounter(
    registry,
    'telerace_video_ingest_thread_restarts_total',
    'Restarts of the video ingest thread after it ended (the cars keep their ports)',
    [],
    () => [[{}, sources.video.ingest.restarts]],
  );
  readGauge(
    registry,
    'telerace_integration_state',
    'Chat and tips integrations: 1 for the current state of each',
    ['integration', 'state'],
    () =>
      INTEGRATION_IDS.flatMap((integration) => {
        const current = sources.integrations.status(integration).state;
        return INTEGRATION_STATES.map((state): [{ integration: string; state: string }, number] => [
          { integration, state },
          state === current ? 1 : 0,
        ]);
      }),
  );
  return registry;
}
