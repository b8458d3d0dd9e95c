/**
 * Live video for the cars (docs/video.md): on the Janus that janus-locator.ts finds, keeps one
 * streaming mountpoint per connected car (mountpoints.ts; id = the car's stream_id, with a PIN
 * only its driver and admins get), and tells each car where to send its RTP (`video {host, port, codec}`) while
 * someone drives it — the only time anyone watches (the control page needs a driving session) —
 * and to stop (`video-stop`) when the session ends, sparing the car's CPU and data.
 *
 * Mountpoints made at run time vanish when Janus restarts: they are re-created when the
 * supervised Janus says `restarted`, and a periodic check re-creates any that went missing
 * (an external Janus restarting), each time sending the car its new port. That check is also how
 * the server knows Janus answers at all (`janusHealth`, the `telerace_janus_up` metric).
 *
 * Several instances (REDIS_URL) share one Janus: the instance holding the car's socket makes,
 * re-keys and destroys its mountpoint; the PIN lives in the database (video-pins.repo.ts), so
 * whichever instance answers the driver reads the PIN the mountpoint has. A PIN is replaced once,
 * where the fact that calls for it was published (video.module.ts `onOrigin`), and the
 * `car.video-pin-changed` fact then sends the holder to re-key.
 */
import { type CarVideo, type ServerCarMessage, SRTP_SUITE } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock, ClockTimer } from '../../clock.js';
import type { Config } from '../../config.js';
import type { EventBus } from '../../events.js';
import { VideoIngest } from './ingest/video-ingest.js';
import { JanusLocator } from './janus-locator.js';
import { CODEC, isLoopback, janusMediaHost, type Mountpoint, Mountpoints, newPin } from './mountpoints.js';
import type { VideoPins } from './video-pins.repo.js';

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

export interface VideoServiceOptions {
  config: Pick<
    Config,
    | 'video'
    | 'janusUrl'
    | 'janusApiUrl'
    | 'janusAdminKey'
    | 'janusRtpHost'
    | 'janusRtpPorts'
    | 'videoIngestPorts'
    | 'janusPublicIp'
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
  /** Says `car.video-pin-changed` once a PIN is replaced. */
  bus: Pick<EventBus, 'emit'>;
  /** The periodic check's timer and the time its results are stamped with. */
  clock: Clock;
}

/** What the periodic checks saw of Janus (the metrics read it). */
export interface JanusHealth {
  /**
   * Janus answers: the last check reached it, none has been waiting for an answer for a whole
   * check period (a Janus that accepts connections but never answers: stopped, hung), and the
   * process of the server's own Janus runs.
   */
  up: boolean;
  /** Seconds since Janus last answered a check, by the service's clock; Infinity: never. */
  lastAnswerAgeSeconds: number;
}

export class VideoService {
  readonly #options: VideoServiceOptions;
  #starting: Promise<void> | undefined;
  readonly #log: FastifyBaseLogger;
  /** Where Janus is (external, supervised here, or none). */
  readonly janus: JanusLocator;
  #reconciler: ClockTimer | undefined;
  /** The check running now: the next one joins it rather than piling on. */
  #checkRunning: Promise<void> | null = null;
  /** Since when the running check has been waiting for Janus's answer; null: it is not. */
  #checkingSince: Date | null = null;
  /** Whether the last check that ended reached Janus; null: none has ended yet. */
  #reached: boolean | null = null;
  /** When Janus last answered a check. */
  #answeredAt: Date | null = null;
  /** The mountpoints this instance made, and their PINs. */
  readonly #mountpoints: Mountpoints;
  /** Cars with a live driving session, whose camera should stream. */
  readonly #driven = new Set<number>();
  /** What each connected car was last told: its mountpoint (and key) and ingest port (no repeats). */
  readonly #told = new Map<number, { mountpoint: Mountpoint; port: number }>();
  /** Where the cars' video arrives, is authenticated and repaired before Janus (ingest/). */
  readonly ingest: VideoIngest;
  /** One mountpoint operation at a time per car. */
  readonly #queues = new Map<number, Promise<unknown>>();
  #stopped = false;

  constructor(options: VideoServiceOptions) {
    this.#options = options;
    this.#log = options.log.child({ component: 'video' });
    this.janus = new JanusLocator({
      config: options.config,
      log: this.#log,
      // Mountpoints made at run time vanished with it: made again, each car told its new port.
      onRestarted: () => {
        this.#mountpoints.forgetAll();
        void this.#reconcile(true);
      },
    });
    this.ingest = new VideoIngest({
      log: this.#log,
      // The ingest's thread was restarted on another port: the driven car is told.
      onMoved: (carId) => {
        this.#told.delete(carId);
        void this.#serially(carId, () => this.#ensureAndSend(carId));
      },
    });
    this.#mountpoints = new Mountpoints({
      config: options.config,
      log: this.#log,
      janus: this.janus,
      pins: options.pins,
      streamIdOf: options.streamIdOf,
    });
  }

  /** True once a Janus answers: the control page can play video. */
  get available(): boolean {
    return this.janus.client !== null;
  }

  /** What the checks saw of Janus; `up` is false without one (VIDEO=off, not installed). */
  janusHealth(): JanusHealth {
    const now = this.#options.clock.now().getTime();
    const periodMs = this.#options.config.janusCheckSeconds * 1000;
    const unanswered = this.#checkingSince !== null && now - this.#checkingSince.getTime() >= periodMs;
    const supervisor = this.janus.supervisor;
    const processRuns = supervisor === null || supervisor.pid !== undefined;
    return {
      up: this.available && this.#reached === true && !unanswered && processRuns,
      lastAnswerAgeSeconds:
        this.#answeredAt === null ? Number.POSITIVE_INFINITY : (now - this.#answeredAt.getTime()) / 1000,
    };
  }

  /** What `viewer` may know of the car's video: the PIN only for its driver and admins. */
  async videoFor(carId: number, mayWatch: boolean): Promise<CarVideo> {
    return (await this.videosFor([carId], mayWatch)).get(carId) ?? { available: false, pin: null };
  }

  /** The same for several cars, with one read of the stored PINs (the admin's list). */
  async videosFor(carIds: readonly number[], mayWatch: boolean): Promise<Map<number, CarVideo>> {
    const available = this.available;
    const pins = available && mayWatch ? await this.#mountpoints.pinsOf(carIds) : new Map<number, string>();
    return new Map(carIds.map((carId) => [carId, { available, pin: pins.get(carId) ?? null }]));
  }

  /** The mountpoint's port while it exists (tests, diagnostics). */
  mountpointOf(carId: number): Mountpoint | null {
    return this.#mountpoints.of(carId) ?? null;
  }

  /** Finds or starts Janus, once (later calls share the first). Never throws: without Janus the site runs without video. */
  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  /** Resolves once `start` has found (or started) its Janus or given up; at once if never started. */
  async started(): Promise<void> {
    await this.#starting;
  }

  async #start(): Promise<void> {
    await this.janus.locate();
    if (this.janus.client === null) return;
    this.#reconciler = this.#options.clock.setInterval(
      () => void this.#reconcile(true),
      this.#options.config.janusCheckSeconds * 1000,
    );
    // Whether Janus answers, and cars that connected while it was starting.
    void this.#reconcile(true);
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
      this.#mountpoints.forget(carId);
      this.ingest.close(carId);
    });
  }

  /** A driving session started: the car's camera starts streaming. */
  sessionStarted(carId: number): Promise<void> {
    this.#driven.add(carId);
    return this.#serially(carId, () => this.#ensureAndSend(carId));
  }

  /**
   * A driving session ended (expiry, kick, ban, account or car deletion): the camera stops. The
   * next driver gets a new PIN (`replacePinAfterSession`, where the session ended) and, once it is
   * stored, everyone watching is evicted (`pinChanged`).
   */
  sessionEnded(carId: number): void {
    this.#driven.delete(carId);
    this.#told.delete(carId);
    this.#options.cars.sendToCar(carId, { type: 'video-stop' });
  }

  /** Once, where the session ended: the stored PIN changes, then every instance hears of it. */
  async replacePinAfterSession(carId: number, sessionId: number): Promise<void> {
    await this.#options.pins.rotateAfterSession(carId, sessionId, newPin());
    this.#options.bus.emit('car.video-pin-changed', { carId });
  }

  /**
   * Once, where an admin lost the role: they may know the PIN of every car (admins are shown them),
   * so every PIN changes, and each car's holder evicts its viewers. The drivers' players re-read
   * their PIN and watch again within a few seconds; a demotion is rare enough for that.
   */
  async replaceAllPins(): Promise<void> {
    for (const carId of await this.#options.pins.carIds()) {
      await this.#options.pins.replace(carId, newPin());
      this.#options.bus.emit('car.video-pin-changed', { carId });
    }
  }

  /**
   * The car's stored PIN changed: a mountpoint this instance made takes it and loses its viewers —
   * a new PIN alone leaves Janus's existing viewers in place, so the former driver would keep
   * receiving the next one's video.
   */
  pinChanged(carId: number): Promise<void> {
    return this.#serially(carId, () => this.#mountpoints.rekey(carId));
  }

  /**
   * The car's secret was rotated (its socket is closed everywhere): the mountpoint this instance
   * made goes, and with it the SRTP key the old secret's holder was told. The car's next
   * connection makes a new one, with a new key.
   */
  carSecretRotated(carId: number): Promise<void> {
    this.#told.delete(carId);
    const made = this.#mountpoints.of(carId);
    const client = this.janus.client;
    if (!made || !client) return Promise.resolve();
    return this.#serially(carId, async () => {
      if (this.#mountpoints.of(carId) !== made) return;
      this.#mountpoints.forget(carId);
      await this.#mountpoints.destroy(client, carId, made.streamId);
      // Connected again meanwhile (on this instance): its new mountpoint, its new key.
      await this.#ensureAndSend(carId);
    });
  }

  /** The car is gone for good: the mountpoint this instance made goes too. */
  carDeleted(carId: number): Promise<void> {
    this.#driven.delete(carId);
    const made = this.#mountpoints.of(carId);
    this.#mountpoints.forget(carId);
    this.ingest.close(carId);
    const client = this.janus.client;
    if (!made || !client) return Promise.resolve();
    return this.#serially(carId, () => this.#mountpoints.destroy(client, carId, made.streamId));
  }

  /**
   * Once, where the car was deleted: its PIN goes, and with REDIS_URL so does a mountpoint no
   * instance answers for — the instance the car last connected to forgot it when the car left
   * (`carOffline`), and it would stay on the shared Janus for good. Destroyed by the deleted car's
   * stream id (no car can connect as a deleted car); one its holder destroyed already answers "no
   * such mountpoint", which is fine. In one process this instance knows every mountpoint it made.
   */
  async removeDeletedCar(carId: number): Promise<void> {
    await this.#options.pins.remove(carId);
    const client = this.janus.client;
    if (this.#options.config.redisUrl === null || !client) return;
    const streamId = await this.#options.formerStreamIdOf(carId);
    if (streamId !== null)
      await this.#serially(carId, () => this.#mountpoints.destroy(client, carId, streamId));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#starting;
    this.#options.clock.clear(this.#reconciler);
    await Promise.allSettled([...this.#queues.values()]);
    await this.ingest.stop();
    await this.janus.stop();
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
   * Every connected car gets (or keeps) its mountpoint; `verify` first checks with Janus, which
   * drops those it no longer has (an external Janus restarted on its own), so they are re-created.
   */
  async #reconcile(verify = false): Promise<void> {
    if (this.#stopped) return;
    if (verify) await this.#check();
    for (const carId of this.#options.cars.onlineCarIds()) {
      void this.#serially(carId, () => this.#ensureAndSend(carId));
    }
  }

  /** One check with Janus, noting whether it answered. A check still running is not piled on. */
  async #check(): Promise<void> {
    if (this.#checkRunning) return;
    this.#checkRunning = this.#runCheck().finally(() => {
      this.#checkRunning = null;
    });
    await this.#checkRunning;
  }

  /** Resolves once the check running now (if any) has noted its answer: tests freeze Janus after it. */
  async checkSettled(): Promise<void> {
    await this.#checkRunning;
  }

  async #runCheck(): Promise<void> {
    const { clock } = this.#options;
    this.#checkingSince = clock.now();
    let reached: boolean;
    try {
      reached = await this.#mountpoints.check(this.#options.cars.onlineCarIds());
    } finally {
      this.#checkingSince = null;
    }
    if (reached) this.#answeredAt = clock.now();
    // Said once per change: the log's alert lines (docs/operations.md) should not repeat every check.
    if (!reached && this.#reached !== false)
      this.#log.error(
        { janusUrl: this.janus.client?.httpUrl },
        'Janus does not answer: live video is down until it does',
      );
    if (reached && this.#reached === false) this.#log.info('Janus answers again');
    this.#reached = reached;
    await this.#applyChangedPins();
  }

  /**
   * A stored PIN another instance changed while this one made the mountpoint (a demotion re-keying
   * a car that was just connecting here) reaches Janus at the next check.
   */
  async #applyChangedPins(): Promise<void> {
    const carIds = this.#mountpoints.keyedCarIds();
    if (carIds.length === 0) return;
    try {
      const stored = await this.#mountpoints.pinsOf(carIds);
      for (const carId of carIds) {
        if (stored.get(carId) === this.#mountpoints.appliedPin(carId)) continue;
        void this.#serially(carId, async () => {
          // Applied meanwhile (a session's end queued before this check)?
          const applied = this.#mountpoints.appliedPin(carId);
          if (applied === undefined) return;
          if ((await this.#mountpoints.pinsOf([carId])).get(carId) === applied) return;
          this.#log.warn({ carId }, 'the stored PIN changed: giving it to the mountpoint');
          await this.#mountpoints.rekey(carId);
        });
      }
    } catch (error) {
      this.#log.warn({ err: error }, 'reading the stored PINs failed');
    }
  }

  async #ensureAndSend(carId: number): Promise<void> {
    const client = this.janus.client;
    // Only the car's holder makes its mountpoint: on a shared Janus another instance making it
    // would replace the holder's (and its port).
    if (!client || this.#stopped || !this.#options.cars.holds(carId)) return;
    const mountpoint = await this.#mountpoints.ensure(client, carId);
    if (!mountpoint || !this.#driven.has(carId)) return;
    const { config } = this.#options;
    const host = config.janusRtpHost;
    // The car's port on the ingest, which forwards to the mountpoint what authenticates.
    const port = await this.ingest.open(carId, {
      key: mountpoint.srtpKey,
      bind: isLoopback(host) ? '127.0.0.1' : '0.0.0.0',
      ports: config.videoIngestPorts,
      janus: { host: janusMediaHost(config), port: mountpoint.port },
    });
    const told = this.#told.get(carId);
    if (told?.mountpoint === mountpoint && told.port === port) return;
    const message = {
      type: 'video',
      host,
      port,
      codec: CODEC,
      srtp: { suite: SRTP_SUITE, key: mountpoint.srtpKey },
    } as const;
    if (this.#options.cars.sendToCar(carId, message)) this.#told.set(carId, { mountpoint, port });
  }
}
