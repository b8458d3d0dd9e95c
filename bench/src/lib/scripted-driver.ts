/**
 * A scripted driver for the soak run: a member who holds a car through the real API (a code the
 * admin generates, then `connect`), drives it over the controller socket at a gamepad's rate
 * (a `drive` per tick, throttle held high with the analog jitter of a real stick, the steering
 * left to the simulated car's assist), and keeps an event socket open as the control page does
 * (hello, a `ping` every 2 s and a `ping_update` with each round trip) to join the race lobby.
 *
 * Given a way to connect the car itself (a probe car held by the run, not a simulated car), it
 * also holds the car's socket (again after the server drops it) and times each drive from its
 * send to its arrival on the car, as the relay benches do (relay-clients.ts): sender and receiver
 * share one clock.
 */
import { performance } from 'node:perf_hooks';
import type WebSocket from 'ws';
import type { MemberSession } from './member-sessions.js';
import { openSocket, takeControl } from './relay-clients.js';

/** TIMERS_MS.latencyPing: the control page's event-socket ping period. */
const PING_MS = 2_000;
/** Distinct throttle values before they repeat (20 s at 50 a second): a drive is told apart by its value. */
const VALUES = 1000;
/** A drive not on the car after this long is lost. */
const LOST_AFTER_MS = 2_000;
/** A lost socket is opened again after this long (and again after each failure). */
const REOPEN_MS = 1_000;
/** How often the member's token is checked: a refreshed one goes to the open sockets (`auth`). */
const RENEW_MS = 60_000;

export interface DriverOptions {
  base: string;
  member: MemberSession;
  /** The admin who generates the control codes. */
  admin: MemberSession;
  carId: number;
  /** Drives per second. */
  rate: number;
  /** Connects the car's own socket when the run holds it (a probe): drives are timed on it. */
  connectCar?: () => Promise<WebSocket>;
  /** Takes the car again whenever the controller socket closes (a probe, outside the races). */
  retake?: boolean;
}

/** What happened to a driver's sockets and drives; the run reads it and then resets it per window. */
export interface DriverCounts {
  sent: number;
  /** Probes only: drives timed on the car (ms) and drives that never arrived. */
  latencies: number[];
  lost: number;
  /** The controller's closes by code (4001: the session ended, e.g. at the race's end). */
  controllerCloses: Record<string, number>;
  /** Event-socket closes by the server, by code. */
  eventCloses: Record<string, number>;
  /** `error` answers on the event socket (a refused join, a command over budget). */
  errors: string[];
}

const emptyCounts = (): DriverCounts => ({
  sent: 0,
  latencies: [],
  lost: 0,
  controllerCloses: {},
  eventCloses: {},
  errors: [],
});

export class ScriptedDriver {
  readonly #options: DriverOptions;
  #controller: WebSocket | null = null;
  #holding: Promise<void> | null = null;
  #events: WebSocket | null = null;
  #car: WebSocket | null = null;
  /** The tokens the event socket and the controller socket live on. */
  #eventToken = '';
  #controllerToken = '';
  #eventPing: NodeJS.Timeout | undefined;
  #ticker: NodeJS.Timeout | undefined;
  #renewer: NodeJS.Timeout | undefined;
  #tick = 0;
  #stopped = false;
  /** Probe: when each throttle value still on its way was sent. */
  readonly #sentAt = new Map<number, number>();
  #counts = emptyCounts();

  constructor(options: DriverOptions) {
    this.#options = options;
  }

  get carId(): number {
    return this.#options.carId;
  }

  get holding(): boolean {
    return this.#controller !== null;
  }

  /** Opens the event socket and starts the ticks (which drive whenever the car is held). */
  async start(): Promise<void> {
    await this.#openEvents();
    const { connectCar } = this.#options;
    if (connectCar) await this.#openCar(connectCar);
    this.#renewer = setInterval(() => void this.#renew().catch(() => undefined), RENEW_MS);
    const { rate } = this.#options;
    // Each driver keeps its own phase within the tick, as real drivers do: no artificial bursts.
    await new Promise((r) => setTimeout(r, Math.random() * (1000 / rate)));
    this.#ticker = setInterval(() => this.#drive(), 1000 / rate);
    if (this.#options.retake) await this.hold();
  }

  /** Takes the car (a fresh code, `connect`, the controller socket), unless it is held already. */
  hold(): Promise<void> {
    if (this.#controller || this.#stopped) return Promise.resolve();
    this.#holding ??= this.#take().finally(() => {
      this.#holding = null;
    });
    return this.#holding;
  }

  async #take(): Promise<void> {
    const { base, admin, member, carId } = this.#options;
    const token = await member.fresh();
    const controller = await takeControl(base, await admin.fresh(), carId, token, member.ip);
    controller.on('error', () => undefined);
    controller.once('close', (code) => {
      this.#controller = null;
      if (this.#stopped) return;
      this.#counts.controllerCloses[code] = (this.#counts.controllerCloses[code] ?? 0) + 1;
      if (this.#options.retake) this.#again(() => this.hold());
    });
    this.#controller = controller;
    this.#controllerToken = token;
  }

  /** Runs `open` after REOPEN_MS, and again after each failure, until it works or the driver stops. */
  #again(open: () => Promise<void>): void {
    setTimeout(() => {
      if (!this.#stopped) open().catch(() => this.#again(open));
    }, REOPEN_MS);
  }

  /** Joins the race lobby with the held car (the control page does it by itself). */
  joinLobby(): void {
    this.#events?.send(JSON.stringify({ type: 'join_lobby', carId: this.#options.carId }));
  }

  async #openEvents(): Promise<void> {
    const { base, member } = this.#options;
    this.#eventToken = await member.fresh();
    const url = `${base.replace(/^http/, 'ws')}/api/race-ws?token=${encodeURIComponent(this.#eventToken)}`;
    const ws = await openSocket(url, { origin: base });
    ws.send(JSON.stringify({ type: 'hello', protocolVersion: 1 }));
    ws.send(JSON.stringify({ type: 'get_current_state' }));
    const ping = () => ws.send(JSON.stringify({ type: 'ping', timestamp: Date.now() }));
    ping();
    this.#eventPing = setInterval(ping, PING_MS);
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; timestamp?: number; error?: string };
      if (message.type === 'pong' && message.timestamp !== undefined) {
        const latency = Math.min(60_000, Math.max(0, Math.round(Date.now() - message.timestamp)));
        ws.send(JSON.stringify({ type: 'ping_update', latency }));
      } else if (message.type === 'error') {
        this.#counts.errors.push(message.error ?? 'error');
      }
    });
    ws.on('error', () => undefined);
    ws.once('close', (code) => {
      clearInterval(this.#eventPing);
      this.#events = null;
      if (this.#stopped) return;
      this.#counts.eventCloses[code] = (this.#counts.eventCloses[code] ?? 0) + 1;
      this.#again(() => this.#openEvents());
    });
    this.#events = ws;
  }

  async #openCar(connect: () => Promise<WebSocket>): Promise<void> {
    const car = await connect();
    car.on('message', (data) => this.#onCarMessage(data));
    car.on('error', () => undefined);
    car.once('close', () => {
      this.#car = null;
      if (!this.#stopped) this.#again(() => this.#openCar(connect));
    });
    this.#car = car;
  }

  /** A refreshed token goes to the open sockets (`auth`), as the web app does, before theirs expires. */
  async #renew(): Promise<void> {
    const token = await this.#options.member.fresh();
    const auth = JSON.stringify({ type: 'auth', token });
    if (this.#events && token !== this.#eventToken) {
      this.#events.send(auth);
      this.#eventToken = token;
    }
    if (this.#controller && token !== this.#controllerToken) {
      this.#controller.send(auth);
      this.#controllerToken = token;
    }
  }

  #drive(): void {
    const controller = this.#controller;
    if (!controller || controller.readyState !== controller.OPEN) return;
    // Held high with a real stick's jitter: each value distinct for VALUES ticks.
    const throttle = 0.9 + (0.09 * (this.#tick++ % VALUES)) / VALUES;
    if (this.#car) this.#sentAt.set(throttle, performance.now());
    controller.send(JSON.stringify({ type: 'drive', throttle, steer: 0 }));
    this.#counts.sent++;
  }

  #lastOnCar = Number.NaN;

  #onCarMessage(data: WebSocket.RawData): void {
    const now = performance.now();
    const message = JSON.parse(data.toString()) as { type?: string; throttle?: number };
    // The relay's heartbeat repeats the last drive: only a new value is a drive arriving.
    if (message.type !== 'drive' || message.throttle === undefined || message.throttle === this.#lastOnCar)
      return;
    this.#lastOnCar = message.throttle;
    const at = this.#sentAt.get(message.throttle);
    if (at === undefined) return;
    this.#sentAt.delete(message.throttle);
    this.#counts.latencies.push(now - at);
  }

  /** The counts since the last call (drives still on their way for long enough count as lost). */
  takeCounts(): DriverCounts {
    const now = performance.now();
    for (const [value, at] of this.#sentAt) {
      if (now - at < LOST_AFTER_MS) continue;
      this.#sentAt.delete(value);
      this.#counts.lost++;
    }
    const counts = this.#counts;
    this.#counts = emptyCounts();
    return counts;
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#ticker);
    clearInterval(this.#eventPing);
    clearInterval(this.#renewer);
    this.#controller?.close();
    this.#events?.close();
    this.#car?.close();
  }
}
