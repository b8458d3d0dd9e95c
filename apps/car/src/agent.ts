/**
 * The car agent: wires the link to the driver (shaping, slew, deadman) and the backend, sends
 * telemetry every 200 ms, runs the admin's reboot/shutdown commands, and streams the camera to
 * where the server's `video` message says (stopped when the link closes).
 */
import { execFile } from 'node:child_process';
import { CarAgentMessage, type CarChannelMessage, ERROR_KEYS, type Telemetry } from '@telerace/protocol';
import { CarChannel } from './channel.js';
import { AGENT_VERSION } from './cli.js';
import type { DriveBackend } from './drive/backend.js';
import { Driver } from './drive/driver.js';
import { NewestCommand } from './drive/newest-command.js';
import { CarLink } from './link.js';
import { type LinkPath, LinkStats } from './link-stats.js';
import type { AgentSettings } from './settings.js';
import type { VideoOutput } from './video/streamer.js';

export const TELEMETRY_MS = 200;
/** The link pings' period (issue 42): the round trip and loss of Car Status. */
export const LINK_PING_MS = 1_000;
/** Exit code asking the supervisor (systemd, SIM_CARS) to start the agent again. */
export const EXIT_RESTART = 75;

export interface AgentDeps {
  backend: DriveBackend;
  log: (line: string) => void;
  /** Ends the process (after `stop()`): 0 for shutdown, 75 for a simulated reboot. */
  exit: (code: number) => void;
  /** Runs a system command without a shell. */
  run?: (argv: string[]) => Promise<void>;
  /** Telemetry the backend does not know (a real car's Wi-Fi signal). */
  telemetry?: () => Telemetry;
  /** The camera stream (none with `--camera none`): started by the server's `video` message. */
  video?: VideoOutput;
  /** The drive channel's answer as the peer takes it (the loss bench's impaired UDP; CarChannelOptions). */
  takeChannelAnswer?: (sdp: string) => Promise<string>;
}

function runCommand(argv: string[]): Promise<void> {
  const [file, ...args] = argv;
  return new Promise((resolve, reject) => {
    if (!file) return reject(new Error('empty command'));
    execFile(file, args, { timeout: 30_000 }, (error) => (error ? reject(error) : resolve()));
  });
}

export class CarAgent {
  readonly driver: Driver;
  readonly link: CarLink;
  /** The drive channel (issue 42): a second path for drives and stops, beside the socket. */
  readonly channel: CarChannel;
  /** Drives and stops come by both paths: only the newest is applied. */
  private readonly newest = new NewestCommand();
  /** The link as this car sees it, sent in its telemetry. */
  readonly linkStats = new LinkStats();
  /** The server answers link pings (its welcome spoke of the drive channel, either way). */
  private serverPongs = false;
  private telemetryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly settings: AgentSettings,
    private readonly deps: AgentDeps,
  ) {
    this.driver = new Driver({
      backend: deps.backend,
      slew: settings.slew,
      trimMax: settings.trimMax,
      log: deps.log,
      onDeadman: () => this.linkStats.deadmanTrip(),
    });
    this.link = new CarLink({
      server: settings.server,
      carId: settings.carId,
      secret: settings.secret,
      agentVersion: AGENT_VERSION,
      // A drive that knows where the finish line is says so: the server's `car` lap counter can
      // count only such a car's laps, and the admin is warned about the others (docs/races.md).
      capabilities: { passes: deps.backend.onPass !== undefined },
      log: deps.log,
    });
    // The finish line's passes go to the server as they happen; a pass while offline is lost
    // (stale by the time the link is back: the server ignores passes older than 10 s anyway).
    deps.backend.onPass?.((at) => this.sendPass(at));
    this.channel = new CarChannel({
      offer: (sdp) => this.link.send({ type: 'rtc_offer', sdp }),
      onMessage: (message) => {
        // A link pong feeds the link's figures, never the deadman (applyCommand).
        if (message.type === 'link-pong') {
          this.linkStats.pong('channel', message.t);
          return;
        }
        this.applyCommand(message, 'channel');
      },
      log: deps.log,
      ...(deps.takeChannelAnswer ? { takeAnswer: deps.takeChannelAnswer } : {}),
    });
    this.link.on('welcome', (config, { driveChannel, linkPings }) => {
      // A new socket: its server numbers commands from 1 again.
      this.newest.reset();
      this.serverPongs = linkPings;
      this.driver.setConfig(config);
      if (driveChannel && settings.driveChannel) this.channel.start();
    });
    this.link.on('refused', (errorKey) => {
      if (errorKey === ERROR_KEYS.driveChannelOff) this.channel.stop();
      else if (errorKey === ERROR_KEYS.driveChannelBusy || errorKey === ERROR_KEYS.validation)
        this.channel.refused(errorKey);
    });
    this.link.on('close', () => {
      this.channel.stop();
      this.driver.disconnected();
      // The mountpoint may be gone with the server: the next connection gets a fresh `video`.
      void this.deps.video?.stop();
    });
    this.link.on('message', (message) => {
      switch (message.type) {
        case 'drive':
        case 'stop':
          this.applyCommand(message, 'socket');
          return;
        case 'link-pong':
          this.linkStats.pong('socket', message.t);
          return;
        case 'rtc_answer':
          void this.channel.answer(message.sdp);
          return;
        case 'config':
          this.driver.setConfig(message.settings);
          this.deps.log(
            `config: forward ${message.settings.forwardSpeedPercent}%, backward ${message.settings.backwardSpeedPercent}%, trim ${message.settings.trimValue}`,
          );
          return;
        case 'command':
          void this.command(message.command);
          return;
        case 'video':
          if (this.stopping) return;
          if (this.deps.video) {
            this.deps.video.start({
              host: message.host,
              port: message.port,
              codec: message.codec,
              srtp: message.srtp,
            });
          } else {
            this.deps.log(`video: camera disabled, not streaming to ${message.host}:${message.port}`);
          }
          return;
        case 'video-stop':
          void this.deps.video?.stop();
          return;
      }
    });
  }

  start(): void {
    this.driver.start();
    this.link.connect();
    this.telemetryTimer = setInterval(() => this.sendTelemetry(), TELEMETRY_MS);
    this.pingTimer = setInterval(() => this.pingLink(), LINK_PING_MS);
  }

  /** Neutral first, then close the socket and the backend. Safe to call more than once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearInterval(this.telemetryTimer);
      clearInterval(this.pingTimer);
      this.driver.close();
      this.channel.stop();
      const video = this.deps.video?.stop();
      await this.link.close();
      await video;
      await this.deps.backend.close();
    })();
    return this.stopping;
  }

  /** A drive or a stop, from the socket or the channel: applied when it is the newest. */
  private applyCommand(message: Exclude<CarChannelMessage, { type: 'link-pong' }>, path: LinkPath): void {
    this.linkStats.command(message.seq, path);
    if (!this.newest.take(message.seq)) return;
    // Only a command the car applies feeds its deadman: not a late copy of an older one (old news
    // from the other path), not a link pong, an `rtc_answer` or a `config` (the server is there,
    // but nobody may be driving: a car whose driver's commands stopped coming through another
    // instance kept driving ~500 ms longer on such messages).
    this.driver.heard();
    if (message.type === 'drive') this.driver.drive(message.throttle, message.steer);
    else this.driver.neutral('stop from the server');
  }

  /** One link ping on the socket and one on the open channel: their answers time the link. */
  private pingLink(): void {
    if (!this.link.isWelcomed || !this.serverPongs) return;
    this.link.send({ type: 'link-ping', t: this.linkStats.ping('socket') });
    if (this.channel.state === 'open')
      this.channel.send({ type: 'link-ping', t: this.linkStats.ping('channel') });
  }

  private sendTelemetry(): void {
    if (!this.link.isWelcomed) return;
    const fps = this.deps.video?.fps();
    const kbps = this.deps.video?.kbps?.();
    const video = this.deps.video?.quality?.();
    const message = CarAgentMessage.safeParse({
      type: 'telemetry',
      ...this.deps.telemetry?.(),
      ...this.deps.backend.telemetry?.(),
      ...(fps === undefined ? {} : { fps: Math.min(240, fps) }),
      ...(kbps === undefined ? {} : { kbps }),
      ...(video === undefined ? {} : { video }),
      ...(this.serverPongs ? { link: this.linkStats.snapshot(this.channel.state === 'open') } : {}),
    });
    if (message.success) this.link.send(message.data);
  }

  /**
   * Never throws: a lap must not take the agent down. Each crossing is logged with the time it
   * carries, sent or not: the car's own record when a lap is disputed (the server's log holds a
   * simulated car's lines, and the soak run compares them with the laps the server counted).
   */
  private sendPass(at: number): void {
    const ms = Math.round(at);
    if (!this.link.isWelcomed || this.stopping) {
      this.deps.log(`pass at ${ms} not sent: not connected`);
      return;
    }
    try {
      const message = CarAgentMessage.safeParse({ type: 'pass', at: ms });
      if (message.success) this.link.send(message.data);
      this.deps.log(`pass at ${ms} sent`);
    } catch (error) {
      this.deps.log(`pass at ${ms} not sent: ${(error as Error).message}`);
    }
  }

  private async command(command: 'reboot' | 'shutdown'): Promise<void> {
    this.driver.neutral(`${command} requested`);
    if (this.settings.drive === 'sim') {
      const code = command === 'reboot' ? EXIT_RESTART : 0;
      this.deps.log(`${command} requested: simulated car exits with code ${code}`);
      await this.stop();
      this.deps.exit(code);
      return;
    }
    const argv = this.settings.commands[command];
    this.deps.log(`${command} requested: running ${argv.join(' ')}`);
    try {
      await (this.deps.run ?? runCommand)(argv);
    } catch (error) {
      this.deps.log(`${command} failed: ${(error as Error).message}`);
    }
  }
}
