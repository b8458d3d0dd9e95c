/**
 * Live video for the cars (VIDEO.md): finds a Janus (external with JANUS_URL, else one the server
 * runs itself when installed, else none — the site runs without video and says so), keeps one
 * streaming mountpoint per connected car (id = the car's stream_id, with a PIN only its driver
 * and admins get), and tells each car where to send its RTP (`video {host, port, codec}`) while
 * someone drives it — the only time anyone watches (the control page needs a driving session) —
 * and to stop (`video-stop`) when the session ends, sparing the car's CPU and data.
 *
 * Mountpoints made at run time vanish when Janus restarts: they are re-created when the
 * supervised Janus says `restarted`, and a periodic check re-creates any that went missing
 * (an external Janus restarting), each time sending the car its new port.
 *
 * Several instances (REDIS_URL) share one Janus: the instance holding the car's socket makes,
 * re-keys and destroys its mountpoint; the PIN lives in the database (video-pins.repo.ts), so
 * whichever instance answers the driver reads the PIN the mountpoint has.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { CarVideo, ServerCarMessage, VideoCodec } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { JanusClient, JanusError } from './janus-client.js';
import { findJanusBinary, findJanusLibDir, JanusSupervisor } from './janus-process.js';
import type { VideoPins } from './video-pins.repo.js';

/** The Debian packages that bring live video (the quick start installs them as root). */
export const VIDEO_INSTALL_COMMAND =
  'apt-get install -y --no-install-recommends janus gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly';

const CODEC: VideoCodec = 'h264';
/** Janus streaming plugin: "no such mountpoint" and "can't create" (e.g. the id exists). */
const NO_SUCH_MOUNTPOINT = 455;
const CANT_CREATE = 456;

/** What the video service needs from the control relay. */
export interface CarMessenger {
  /** The cars whose socket this instance holds. */
  onlineCarIds(): number[];
  /** Whether this instance holds the car's socket. */
  holds(carId: number): boolean;
  /** Whether the car's socket is held here or by another instance. */
  isOnline(carId: number): boolean;
  sendToCar(carId: number, message: ServerCarMessage): boolean;
}

interface Mountpoint {
  streamId: number;
  port: number;
}

export interface VideoServiceOptions {
  config: Pick<
    Config,
    | 'video'
    | 'janusUrl'
    | 'janusApiUrl'
    | 'janusAdminKey'
    | 'janusRtpHost'
    | 'janusCheckSeconds'
    | 'dataDir'
    | 'jwtSecret'
    | 'redisUrl'
  >;
  log: FastifyBaseLogger;
  cars: CarMessenger;
  /** The car's stream_id, or null when the car no longer exists. */
  streamIdOf(carId: number): Promise<number | null>;
  /** The stream_id the car had, deleted or not (null: no such car). */
  formerStreamIdOf(carId: number): Promise<number | null>;
  /** Whether the car has a live driving session. */
  isDriven(carId: number): Promise<boolean>;
  /** The mountpoints' PINs, shared by every instance. */
  pins: VideoPins;
  /** Whether this instance leads (it re-keys the PINs of cars no instance holds). */
  isLeader(): boolean;
}

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');

export class VideoService {
  readonly #options: VideoServiceOptions;
  #starting: Promise<void> | undefined;
  readonly #log: FastifyBaseLogger;
  #client: JanusClient | null = null;
  #wsUrl: string | null = null;
  #supervisor: JanusSupervisor | null = null;
  #reconciler: NodeJS.Timeout | undefined;
  /** The timer's check with Janus is running. */
  #verifying = false;
  /**
   * Mountpoints this instance made and answers for, by car id. With REDIS_URL one is forgotten
   * when its car leaves: the instance the car connects to next replaces it on the shared Janus.
   */
  readonly #mountpoints = new Map<number, Mountpoint>();
  /** The PIN each of those mountpoints was given (the stored one may have changed since). */
  readonly #applied = new Map<number, string>();
  /** Cars with a live driving session, whose camera should stream. */
  readonly #driven = new Set<number>();
  /** The RTP port each connected car was last told to stream to (no repeats of the same). */
  readonly #told = new Map<number, number>();
  /** One mountpoint operation at a time per car. */
  readonly #queues = new Map<number, Promise<unknown>>();
  #stopped = false;

  constructor(options: VideoServiceOptions) {
    this.#options = options;
    this.#log = options.log.child({ component: 'video' });
  }

  /** True once a Janus answers: the control page can play video. */
  get available(): boolean {
    return this.#client !== null;
  }

  /** Janus's WebSocket transport, for the same-origin `/janus` proxy. */
  get janusWsUrl(): string | null {
    return this.#wsUrl;
  }

  /** The supervised Janus (tests kill it), if the server runs its own. */
  get supervisor(): JanusSupervisor | null {
    return this.#supervisor;
  }

  /** What `viewer` may know of the car's video: the PIN only for its driver and admins. */
  async videoFor(carId: number, mayWatch: boolean): Promise<CarVideo> {
    return (await this.videosFor([carId], mayWatch)).get(carId) ?? { available: false, pin: null };
  }

  /** The same for several cars, with one read of the stored PINs (the admin's list). */
  async videosFor(carIds: readonly number[], mayWatch: boolean): Promise<Map<number, CarVideo>> {
    const available = this.available;
    const pins = available && mayWatch ? await this.#pinsOf(carIds) : new Map<number, string>();
    return new Map(carIds.map((carId) => [carId, { available, pin: pins.get(carId) ?? null }]));
  }

  /** The mountpoint's port while it exists (tests, diagnostics). */
  mountpointOf(carId: number): Mountpoint | null {
    return this.#mountpoints.get(carId) ?? null;
  }

  /** Finds or starts Janus. Never throws: without Janus the site runs without video. */
  /** Finds or starts Janus, once (later calls share the first). */
  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  /** Resolves once `start` has found (or started) its Janus or given up; at once if never started. */
  async started(): Promise<void> {
    await this.#starting;
  }

  async #start(): Promise<void> {
    const { config } = this.#options;
    if (config.video === 'off') {
      this.#log.info('live video is off (VIDEO=off)');
      return;
    }
    if (config.janusUrl !== null && config.janusApiUrl !== null) {
      this.#client = new JanusClient(config.janusApiUrl, config.janusAdminKey);
      this.#wsUrl = config.janusUrl;
      this.#log.info({ janusUrl: config.janusUrl }, 'live video through an external Janus');
    } else if (findJanusBinary() !== null && findJanusLibDir() !== null) {
      const supervisor = new JanusSupervisor({ dataDir: config.dataDir, log: this.#log });
      try {
        await supervisor.start();
      } catch (error) {
        this.#log.error({ err: error }, 'Janus did not start: live video is unavailable');
        return;
      }
      this.#supervisor = supervisor;
      this.#client = new JanusClient(supervisor.httpUrl, supervisor.adminKey);
      this.#wsUrl = supervisor.wsUrl;
      supervisor.on('restarted', () => {
        this.#mountpoints.clear();
        this.#applied.clear();
        void this.#reconcile();
      });
      if (config.redisUrl !== null) {
        // Each instance runs its own Janus: a car's mountpoint is on its instance's Janus only.
        this.#log.warn(
          'REDIS_URL is set without JANUS_URL: each instance runs its own Janus, and members whose /janus socket reaches another instance than the car cannot see its video. Point every instance at one shared Janus (JANUS_URL, JANUS_API_URL, JANUS_ADMIN_KEY).',
        );
      }
    } else {
      // Once, with the exact command: an operator should not have to guess what is missing.
      this.#log.warn(
        { install: VIDEO_INSTALL_COMMAND },
        `live video is unavailable: Janus is not installed. Install it as root with: ${VIDEO_INSTALL_COMMAND}`,
      );
      return;
    }
    this.#reconciler = setInterval(() => void this.#reconcile(true), config.janusCheckSeconds * 1000);
    this.#reconciler.unref();
    // Cars that connected while Janus was starting.
    void this.#reconcile();
  }

  /** A car agent finished its handshake: its mountpoint is made, and it streams if driven. */
  carOnline(carId: number): Promise<void> {
    return this.#serially(carId, async () => {
      if (await this.#options.isDriven(carId)) this.#driven.add(carId);
      await this.#ensureAndSend(carId);
    });
  }

  /**
   * The car's socket closed: its next connection is told its target again. With REDIS_URL the
   * car may connect to another instance next, which replaces the mountpoint on the shared Janus
   * (maybe on another port): this one no longer answers for it (nor trusts its port).
   */
  carOffline(carId: number): void {
    this.#told.delete(carId);
    if (this.#options.config.redisUrl === null || this.#options.cars.holds(carId)) return;
    void this.#serially(carId, async () => {
      if (this.#options.cars.holds(carId)) return;
      this.#mountpoints.delete(carId);
      this.#applied.delete(carId);
    });
  }

  /** A driving session started: the car's camera starts streaming. */
  sessionStarted(carId: number): Promise<void> {
    this.#driven.add(carId);
    return this.#serially(carId, () => this.#ensureAndSend(carId));
  }

  /**
   * A driving session ended (expiry, kick, ban, account or car deletion): the camera stops, the
   * next driver gets a new PIN, and everyone watching is evicted — a new PIN alone leaves Janus's
   * existing viewers in place, so the former driver would keep receiving the next one's video.
   */
  sessionEnded(carId: number, sessionId: number): Promise<void> {
    this.#driven.delete(carId);
    this.#told.delete(carId);
    this.#options.cars.sendToCar(carId, { type: 'video-stop' });
    return this.#serially(carId, async () => {
      // Every instance hears of the end; the stored PIN changes once, whoever comes first.
      await this.#options.pins.rotateAfterSession(carId, sessionId, newPin());
      await this.#evictViewers(carId);
    });
  }

  /**
   * An admin lost the role: they may know the PIN of every car (admins are shown them), so every
   * PIN changes and every mountpoint loses its viewers: each instance re-keys the mountpoints it
   * made, the leader the PINs of cars no instance holds. The drivers' players re-read their PIN
   * and watch again within a few seconds; a demotion is rare enough for that.
   */
  async adminDemoted(): Promise<void> {
    const mine = [...this.#mountpoints.keys()];
    const rekeyed = mine.map((carId) =>
      this.#serially(carId, async () => {
        await this.#options.pins.replace(carId, newPin());
        await this.#evictViewers(carId);
      }),
    );
    if (this.#options.isLeader()) {
      const { cars, pins } = this.#options;
      try {
        for (const carId of await pins.carIds()) {
          const heldElsewhere = cars.isOnline(carId) && !cars.holds(carId);
          if (!this.#mountpoints.has(carId) && !heldElsewhere) await pins.replace(carId, newPin());
        }
      } catch (error) {
        this.#log.warn({ err: error }, 'replacing the PINs of cars nobody holds failed');
      }
    }
    await Promise.all(rekeyed);
  }

  /** The car is gone for good: its PIN and its mountpoint go too. */
  carDeleted(carId: number): Promise<void> {
    return this.#serially(carId, async () => {
      const client = this.#client;
      this.#driven.delete(carId);
      this.#applied.delete(carId);
      await this.#options.pins.remove(carId);
      const made = this.#mountpoints.get(carId);
      this.#mountpoints.delete(carId);
      if (!client) return;
      const streamId = made?.streamId ?? (await this.#orphanStreamId(carId));
      if (streamId === null) return;
      try {
        await client.destroyMountpoint(streamId, this.#secretOf(streamId));
        this.#log.info({ carId, streamId }, 'mountpoint destroyed');
      } catch (error) {
        if (!(error instanceof JanusError && error.code === NO_SUCH_MOUNTPOINT))
          this.#log.warn({ err: error, carId }, 'destroying the mountpoint failed');
      }
    });
  }

  /**
   * With REDIS_URL, the mountpoint of a deleted car that no instance answers for: the instance it
   * last connected to forgot it when the car left (`carOffline`), and it would stay on the shared
   * Janus for good. The leader removes it (exactly one instance tries; "no such mountpoint" is
   * fine). In one process the instance always knows its own mountpoints.
   */
  async #orphanStreamId(carId: number): Promise<number | null> {
    if (this.#options.config.redisUrl === null || !this.#options.isLeader()) return null;
    return this.#options.formerStreamIdOf(carId);
  }

  /**
   * The mountpoint this instance made takes the stored PIN (already new) and loses its viewers:
   * an evicted viewer cannot come back with the old PIN.
   */
  async #evictViewers(carId: number): Promise<void> {
    const mountpoint = this.#mountpoints.get(carId);
    const client = this.#client;
    if (!mountpoint || !client) return;
    const pin = (await this.#pinsOf([carId])).get(carId);
    if (pin === undefined) return;
    const secret = this.#secretOf(mountpoint.streamId);
    try {
      await client.changePinAndEvict(mountpoint.streamId, secret, pin);
      this.#applied.set(carId, pin);
      this.#log.info({ carId, streamId: mountpoint.streamId }, 'new PIN, viewers evicted');
    } catch (error) {
      // Gone meanwhile (Janus restarted): re-created, without viewers, with the new PIN.
      this.#mountpoints.delete(carId);
      this.#applied.delete(carId);
      if (error instanceof JanusError && error.code === NO_SUCH_MOUNTPOINT) return;
      // Any other failure (Janus slow, or an external Janus too old for `kick_all`) may have left
      // the old PIN or a viewer in place: destroying the mountpoint drops both; it is re-created
      // (and the car told its port) when next needed.
      this.#log.warn({ err: error, carId }, 'evicting the viewers failed: destroying the mountpoint');
      await client.destroyMountpoint(mountpoint.streamId, secret).catch((destroyError: unknown) => {
        this.#log.warn({ err: destroyError, carId }, 'destroying the mountpoint failed');
      });
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#starting;
    clearInterval(this.#reconciler);
    await Promise.allSettled([...this.#queues.values()]);
    await this.#supervisor?.stop();
  }

  /** The stored PINs, stable across re-creations so viewers' retries keep working. */
  #pinsOf(carIds: readonly number[]): Promise<Map<number, string>> {
    return this.#options.pins.pinsOf(carIds, newPin);
  }

  #secretOf(streamId: number): string {
    return mountpointSecret(this.#options.config.jwtSecret, streamId);
  }

  #serially(carId: number, work: () => Promise<void>): Promise<void> {
    const previous = this.#queues.get(carId) ?? Promise.resolve();
    const next = previous.then(work, work).catch((error: unknown) => {
      this.#log.warn({ err: error, carId }, 'video mountpoint operation failed');
    });
    this.#queues.set(carId, next);
    void next.finally(() => {
      if (this.#queues.get(carId) === next) this.#queues.delete(carId);
    });
    return next;
  }

  /**
   * Every connected car gets (or keeps) its mountpoint; `verify` first drops those Janus no longer
   * has (an external Janus restarted on its own), so they are re-created.
   */
  async #reconcile(verify = false): Promise<void> {
    if (this.#stopped) return;
    if (verify) {
      // A check still running (Janus slow to answer): this one is skipped rather than piled on.
      if (this.#verifying) return;
      this.#verifying = true;
      try {
        await this.#forgetMissing(this.#options.cars.onlineCarIds());
        await this.#applyChangedPins();
      } finally {
        this.#verifying = false;
      }
    }
    for (const carId of this.#options.cars.onlineCarIds()) {
      void this.#serially(carId, () => this.#ensureAndSend(carId));
    }
  }

  /**
   * Asks Janus which of the cars' mountpoints it still has: one `list` with the admin key (private
   * mountpoints are listed only with it), else one `info` per car, one after the other. Never a
   * burst of requests: they share the event loop with the cars' control traffic.
   */
  async #forgetMissing(carIds: number[]): Promise<void> {
    const client = this.#client;
    const known = carIds.flatMap((carId) => {
      const mountpoint = this.#mountpoints.get(carId);
      return mountpoint ? [{ carId, mountpoint }] : [];
    });
    if (!client || known.length === 0) return;
    const forget = ({ carId, mountpoint }: { carId: number; mountpoint: Mountpoint }) => {
      if (this.#mountpoints.get(carId) !== mountpoint) return;
      this.#mountpoints.delete(carId);
      this.#log.warn({ carId }, 'mountpoint missing (Janus restarted?): re-creating it');
    };
    try {
      if (client.adminKey !== null) {
        const listed = new Set((await client.listMountpoints()).map((summary) => summary.id));
        for (const entry of known) if (!listed.has(entry.mountpoint.streamId)) forget(entry);
        return;
      }
      for (const entry of known) {
        const { streamId } = entry.mountpoint;
        try {
          await client.info(streamId, this.#secretOf(streamId));
        } catch (error) {
          if (!(error instanceof JanusError && error.code === NO_SUCH_MOUNTPOINT)) throw error;
          forget(entry);
        }
      }
    } catch (error) {
      this.#log.warn({ err: error }, 'checking the mountpoints with Janus failed');
    }
  }

  /**
   * A stored PIN another instance changed while this one made the mountpoint (the leader re-keying
   * a car that was just connecting here) reaches Janus at the next check.
   */
  async #applyChangedPins(): Promise<void> {
    const carIds = [...this.#applied.keys()];
    if (carIds.length === 0) return;
    try {
      const stored = await this.#pinsOf(carIds);
      for (const carId of carIds) {
        if (stored.get(carId) === this.#applied.get(carId)) continue;
        void this.#serially(carId, async () => {
          // Applied meanwhile (a session's end queued before this check)?
          if (!this.#applied.has(carId)) return;
          if ((await this.#pinsOf([carId])).get(carId) === this.#applied.get(carId)) return;
          this.#log.warn({ carId }, 'the stored PIN changed: giving it to the mountpoint');
          await this.#evictViewers(carId);
        });
      }
    } catch (error) {
      this.#log.warn({ err: error }, 'reading the stored PINs failed');
    }
  }

  async #ensureAndSend(carId: number): Promise<void> {
    const client = this.#client;
    // Only the car's holder makes its mountpoint: on a shared Janus another instance making it
    // would replace the holder's (and its port).
    if (!client || this.#stopped || !this.#options.cars.holds(carId)) return;
    const mountpoint = this.#mountpoints.get(carId) ?? (await this.#create(client, carId));
    if (!mountpoint || !this.#driven.has(carId) || this.#told.get(carId) === mountpoint.port) return;
    const host = this.#options.config.janusRtpHost;
    if (this.#options.cars.sendToCar(carId, { type: 'video', host, port: mountpoint.port, codec: CODEC }))
      this.#told.set(carId, mountpoint.port);
  }

  async #create(client: JanusClient, carId: number): Promise<Mountpoint | null> {
    const streamId = await this.#options.streamIdOf(carId);
    if (streamId === null) return null;
    const pin = (await this.#pinsOf([carId])).get(carId);
    if (pin === undefined) return null;
    const host = this.#options.config.janusRtpHost;
    const options = {
      id: streamId,
      pin,
      secret: this.#secretOf(streamId),
      codec: CODEC,
      iface: isLoopback(host) ? '127.0.0.1' : undefined,
    };
    let created: { port: number };
    try {
      created = await client.createMountpoint(options);
    } catch (error) {
      if (!(error instanceof JanusError && error.code === CANT_CREATE)) throw error;
      // Left over from an earlier run of this server (external Janus): replace it.
      await client.destroyMountpoint(streamId, options.secret);
      created = await client.createMountpoint(options);
    }
    const mountpoint = { streamId, port: created.port };
    this.#mountpoints.set(carId, mountpoint);
    this.#applied.set(carId, pin);
    this.#log.info({ carId, streamId, port: created.port }, 'mountpoint created');
    return mountpoint;
  }
}

/**
 * A mountpoint's secret, derived from the server's secret: after a server restart it still opens
 * the mountpoints an external Janus kept, so they can be destroyed and re-created.
 */
export function mountpointSecret(jwtSecret: string, streamId: number): string {
  return createHmac('sha256', jwtSecret).update(`janus-mountpoint:${streamId}`).digest('base64url');
}

function newPin(): string {
  return randomBytes(9).toString('base64url');
}
