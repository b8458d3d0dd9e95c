/**
 * A car's link in user space for a whole range of UDP ports (issue 43): this kernel has no netem,
 * and `tc` on a namespace pair would need the car's agent in the namespace. The proxy listens on
 * `listenHost` (e.g. 127.0.0.2) on every port of a range and forwards each datagram to the same
 * port on `targetHost` (e.g. 127.0.0.1); what the target answers goes back to the sender, through
 * one upstream socket per (sender, port) as a NAT would keep. With `JANUS_RTP_HOST=127.0.0.2` the
 * car is told to send to 127.0.0.2:<port> while its mountpoint listens on 127.0.0.1:<port>, so the
 * proxy sits on the car's link alone (docs/performance.md "Video on a lossy uplink").
 *
 * Each direction is an `ImpairedLink`, in this order:
 * 1. random loss (the radio), from a seeded generator (impairment.ts's), so runs are comparable;
 * 2. a rate limit (the narrow uplink), a token bucket as `tc qdisc … tbf rate R burst B latency L`:
 *    tokens accrue at R up to B bytes, a packet leaves when the bucket holds its size, and waits
 *    in a FIFO until then; the FIFO holds at most R × L + B bytes (tc's `limit` from `latency`),
 *    and a packet that does not fit is dropped. Sizes count the IPv4 and UDP headers (28 bytes);
 *    `rateKbps: null` is no limit;
 * 3. a one-way delay, base plus up to `jitterMs`, never reordering (a queue: a packet never leaves
 *    before the one ahead of it).
 * Everything can change while traffic flows (setLoss, setRateKbps, setDelay).
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { seededRandom } from './impairment.js';

/** IPv4 (20) and UDP (8) headers: what a qdisc counts beyond the payload. */
const HEADER_BYTES = 28;

export interface LinkSettings {
  /** Base delay, this direction. */
  oneWayMs: number;
  /** Up to this much more per packet, uniformly drawn (without reordering). */
  jitterMs: number;
  /** Probability that a packet is lost (0–1). */
  loss: number;
  /** Rate limit in kbit/s (1000 bit/s), or null for none. */
  rateKbps: number | null;
  /** The token bucket's size (tc `burst`). */
  burstBytes: number;
  /** tc `latency`: the FIFO holds rate × latency + burst bytes. */
  latencyMs: number;
}

export const DEFAULT_LINK: LinkSettings = {
  oneWayMs: 0,
  jitterMs: 0,
  loss: 0,
  rateKbps: null,
  burstBytes: 32 * 1024,
  latencyMs: 300,
};

export interface LinkCounters {
  /** Packets that came to the link. */
  in: number;
  /** Packets delivered. */
  out: number;
  /** Lost at random. */
  lost: number;
  /** Dropped by the rate limit (FIFO full, or larger than the bucket). */
  queueDropped: number;
  /** Payload bytes that came, and that were delivered. */
  bytesIn: number;
  bytesOut: number;
}

/** One direction of a link: loss, then the rate limit, then the delay (see the file's comment). */
export class ImpairedLink {
  #settings: LinkSettings;
  readonly #random: () => number;
  readonly #counters: LinkCounters = {
    in: 0,
    out: 0,
    lost: 0,
    queueDropped: 0,
    bytesIn: 0,
    bytesOut: 0,
  };
  /** Waiting for tokens: wire sizes and their senders. */
  readonly #fifo: { wire: number; bytes: number; send: () => void }[] = [];
  #fifoBytes = 0;
  #tokens: number;
  #tokensAt = performance.now();
  #bucketTimer: NodeJS.Timeout | undefined;
  /** In flight: when each leaves (non-decreasing). */
  readonly #flight: { at: number; bytes: number; send: () => void }[] = [];
  #flightTimer: NodeJS.Timeout | undefined;
  #lastAt = 0;
  #maxLateMs = 0;
  #closed = false;

  constructor(settings: Partial<LinkSettings> = {}, seed = 1) {
    this.#settings = { ...DEFAULT_LINK, ...settings };
    this.#random = seededRandom(seed);
    this.#tokens = this.#settings.burstBytes;
  }

  get settings(): Readonly<LinkSettings> {
    return this.#settings;
  }

  get counters(): Readonly<LinkCounters> {
    return { ...this.#counters };
  }

  /** Bytes (wire sizes) waiting for the rate limit's tokens. */
  get queuedBytes(): number {
    return this.#fifoBytes;
  }

  /**
   * The most a delivery came after its due time (ms) since the last call: the proxy's own timers
   * late (a busy machine or event loop), a delay the link did not mean to add.
   */
  takeMaxLateMs(): number {
    const late = this.#maxLateMs;
    this.#maxLateMs = 0;
    return late;
  }

  setLoss(loss: number): void {
    if (!(loss >= 0 && loss <= 1)) throw new RangeError(`loss must be 0–1, got ${loss}`);
    this.#settings = { ...this.#settings, loss };
  }

  setDelay(oneWayMs: number, jitterMs = 0): void {
    if (!(oneWayMs >= 0 && jitterMs >= 0)) throw new RangeError('delays must be ≥ 0');
    this.#settings = { ...this.#settings, oneWayMs, jitterMs };
  }

  /** kbit/s, or null for no limit; the tokens gathered so far are kept. */
  setRateKbps(rateKbps: number | null): void {
    if (rateKbps !== null && !(rateKbps > 0)) throw new RangeError(`rate must be > 0, got ${rateKbps}`);
    this.#refill();
    this.#settings = { ...this.#settings, rateKbps };
    this.#drain();
  }

  /** A datagram of `bytes` payload bytes comes to the link; `send` delivers it at the far end. */
  push(bytes: number, send: () => void): void {
    if (this.#closed) return;
    this.#counters.in += 1;
    this.#counters.bytesIn += bytes;
    if (this.#random() < this.#settings.loss) {
      this.#counters.lost += 1;
      return;
    }
    const { rateKbps, burstBytes, latencyMs } = this.#settings;
    const wire = bytes + HEADER_BYTES;
    if (rateKbps !== null) {
      const limit = (rateKbps * 1000 * latencyMs) / 8 / 1000 + burstBytes;
      if (wire > burstBytes || this.#fifoBytes + wire > limit) {
        this.#counters.queueDropped += 1;
        return;
      }
    }
    this.#fifo.push({ wire, bytes, send });
    this.#fifoBytes += wire;
    this.#drain();
  }

  /** Tokens gathered since the last look, up to the bucket's size. */
  #refill(): void {
    const now = performance.now();
    const { rateKbps, burstBytes } = this.#settings;
    if (rateKbps !== null) {
      this.#tokens = Math.min(burstBytes, this.#tokens + ((now - this.#tokensAt) * rateKbps) / 8);
    } else this.#tokens = burstBytes;
    this.#tokensAt = now;
  }

  /** Lets through every packet at the head of the FIFO the bucket pays for; waits for the next. */
  #drain(): void {
    clearTimeout(this.#bucketTimer);
    this.#bucketTimer = undefined;
    this.#refill();
    const { rateKbps } = this.#settings;
    for (;;) {
      const head = this.#fifo[0];
      if (!head) return;
      if (rateKbps !== null && head.wire > this.#tokens) {
        // kbit/s = bytes per ms × 8.
        const wait = ((head.wire - this.#tokens) * 8) / rateKbps;
        this.#bucketTimer = setTimeout(() => this.#drain(), Math.max(1, Math.ceil(wait)));
        return;
      }
      if (rateKbps !== null) this.#tokens -= head.wire;
      this.#fifo.shift();
      this.#fifoBytes -= head.wire;
      this.#propagate(head.bytes, head.send);
    }
  }

  #propagate(bytes: number, send: () => void): void {
    const { oneWayMs, jitterMs } = this.#settings;
    const now = performance.now();
    const at = Math.max(this.#lastAt, now + oneWayMs + (jitterMs > 0 ? this.#random() * jitterMs : 0));
    this.#lastAt = at;
    if (at <= now && this.#flight.length === 0) {
      this.#deliver(bytes, send);
      return;
    }
    this.#flight.push({ at, bytes, send });
    if (this.#flight.length === 1) this.#land();
  }

  /** Delivers what is due from the in-flight queue, then waits for the next. */
  #land(): void {
    clearTimeout(this.#flightTimer);
    this.#flightTimer = undefined;
    const now = performance.now();
    for (;;) {
      const head = this.#flight[0];
      if (!head) return;
      if (head.at > now) {
        this.#flightTimer = setTimeout(() => this.#land(), head.at - now);
        return;
      }
      this.#flight.shift();
      this.#maxLateMs = Math.max(this.#maxLateMs, now - head.at);
      this.#deliver(head.bytes, head.send);
    }
  }

  #deliver(bytes: number, send: () => void): void {
    this.#counters.out += 1;
    this.#counters.bytesOut += bytes;
    send();
  }

  /** Drops everything queued or in flight. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#bucketTimer);
    clearTimeout(this.#flightTimer);
    this.#fifo.length = 0;
    this.#flight.length = 0;
  }
}

export type PortRange = readonly [low: number, high: number];

export interface UdpRangeProxyOptions {
  /** Where senders reach the proxy, e.g. 127.0.0.2. */
  listenHost: string;
  /** Where it forwards to, each datagram to the port it came to, e.g. 127.0.0.1. */
  targetHost: string;
  /** The target's ports. */
  ports: PortRange;
  /**
   * The proxy listens on each target port plus this (0 by default): beside a target that holds
   * those ports on every address, with a NAT sending the senders' datagrams here (car-netns.ts
   * `redirectUdp`).
   */
  listenPortOffset?: number;
  /** Both directions' starting settings (change them later through `up`, `down` or the setters). */
  link?: Partial<LinkSettings>;
  /** Seeds the two directions' generators (`seed`, `seed + 1`). */
  seed?: number;
  /** An upstream socket unused this long is closed (a NAT mapping expiring). */
  idleMs?: number;
}

export type Direction = 'up' | 'down' | 'both';

export interface UdpRangeProxy {
  /** Senders → target (the car's uplink). */
  readonly up: ImpairedLink;
  /** Target → senders. */
  readonly down: ImpairedLink;
  /** Upstream sockets open: one per (sender, port). */
  readonly mappings: number;
  setLoss(loss: number, direction?: Direction): void;
  setDelay(oneWayMs: number, jitterMs?: number, direction?: Direction): void;
  setRateKbps(rateKbps: number | null, direction?: Direction): void;
  close(): Promise<void>;
}

const bind = (socket: Socket, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });

/** Starts the proxy; rejects when a port of the range cannot be bound on `listenHost`. */
export async function startUdpRangeProxy(options: UdpRangeProxyOptions): Promise<UdpRangeProxy> {
  const [low, high] = options.ports;
  const offset = options.listenPortOffset ?? 0;
  const valid = (port: number) => Number.isInteger(port) && port >= 1 && port <= 65_535;
  if (!(valid(low) && valid(high) && low <= high && valid(low + offset) && valid(high + offset))) {
    throw new RangeError(`bad port range ${low}-${high} (listening ${offset >= 0 ? '+' : ''}${offset})`);
  }
  const seed = options.seed ?? 1;
  const up = new ImpairedLink(options.link, seed);
  const down = new ImpairedLink(options.link, seed + 1);
  const idleMs = options.idleMs ?? 60_000;
  const fronts: Socket[] = [];
  /** `port sender-address:sender-port` → its upstream socket. */
  const upstreams = new Map<string, { socket: Socket; usedAt: number }>();

  const upstreamFor = (front: Socket, port: number, from: RemoteInfo) => {
    const key = `${port} ${from.address}:${from.port}`;
    let upstream = upstreams.get(key);
    if (!upstream) {
      const socket = createSocket('udp4');
      socket.on('error', () => undefined);
      socket.on('message', (reply) => {
        const mapping = upstreams.get(key);
        if (mapping) mapping.usedAt = performance.now();
        down.push(reply.length, () => front.send(reply, from.port, from.address));
      });
      // The target's own address: sends are queued by dgram until the bind completes.
      socket.bind(0, options.targetHost);
      upstream = { socket, usedAt: 0 };
      upstreams.set(key, upstream);
    }
    upstream.usedAt = performance.now();
    return upstream.socket;
  };

  try {
    for (let port = low; port <= high; port++) {
      const front = createSocket('udp4');
      fronts.push(front);
      await bind(front, port + offset, options.listenHost);
      front.on('error', () => undefined);
      front.on('message', (message, from) => {
        const upstream = upstreamFor(front, port, from);
        up.push(message.length, () => upstream.send(message, port, options.targetHost));
      });
    }
  } catch (error) {
    for (const front of fronts) front.close();
    throw new Error(
      `udp-range-proxy: cannot bind ${options.listenHost}:${low + offset}-${high + offset}: ${String(error)}`,
    );
  }

  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const [key, upstream] of upstreams) {
        if (now - upstream.usedAt < idleMs) continue;
        upstreams.delete(key);
        upstream.socket.close();
      }
    },
    Math.max(100, idleMs / 2),
  );
  sweep.unref();

  let closed = false;
  const each = (direction: Direction, apply: (link: ImpairedLink) => void) => {
    if (direction !== 'down') apply(up);
    if (direction !== 'up') apply(down);
  };
  return {
    up,
    down,
    get mappings() {
      return upstreams.size;
    },
    setLoss: (loss, direction = 'both') => each(direction, (link) => link.setLoss(loss)),
    setDelay: (oneWayMs, jitterMs = 0, direction = 'both') =>
      each(direction, (link) => link.setDelay(oneWayMs, jitterMs)),
    setRateKbps: (rateKbps, direction = 'both') => each(direction, (link) => link.setRateKbps(rateKbps)),
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      up.close();
      down.close();
      const closing = [...fronts, ...[...upstreams.values()].map((u) => u.socket)].map(
        (socket) => new Promise<void>((resolve) => socket.close(() => resolve())),
      );
      upstreams.clear();
      await Promise.all(closing);
    },
  };
}
