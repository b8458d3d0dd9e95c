/**
 * Where the live video's Janus is (docs/video.md): an external one with JANUS_URL, else one the server
 * runs and supervises itself when installed, else none — the site runs without video and says so,
 * once, with the command that installs it. The mountpoints on it are video.service.ts's.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { JanusClient } from './janus-client.js';
import { findJanusBinary, findJanusLibDir, JanusSupervisor } from './janus-process.js';

/** The Debian packages that bring live video (the quick start installs them as root). */
export const VIDEO_INSTALL_COMMAND =
  'apt-get install -y --no-install-recommends janus gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0';

interface JanusLocatorOptions {
  config: Pick<
    Config,
    | 'video'
    | 'janusUrl'
    | 'janusApiUrl'
    | 'janusAdminKey'
    | 'janusRtpPorts'
    | 'janusPublicIp'
    | 'dataDir'
    | 'redisUrl'
  >;
  log: FastifyBaseLogger;
  /** The supervised Janus restarted: the mountpoints made at run time are gone. */
  onRestarted(): void;
}

export class JanusLocator {
  readonly #options: JanusLocatorOptions;
  readonly #log: FastifyBaseLogger;
  #client: JanusClient | null = null;
  #wsUrl: string | null = null;
  #supervisor: JanusSupervisor | null = null;

  constructor(options: JanusLocatorOptions) {
    this.#options = options;
    this.#log = options.log;
  }

  /** Janus's HTTP API once one answers, else null (no video). */
  get client(): JanusClient | null {
    return this.#client;
  }

  /** Janus's WebSocket transport, for the same-origin `/janus` proxy. */
  get wsUrl(): string | null {
    return this.#wsUrl;
  }

  /** The supervised Janus (tests kill it), if the server runs its own. */
  get supervisor(): JanusSupervisor | null {
    return this.#supervisor;
  }

  /** Finds or starts Janus. Never throws: without Janus the site runs without video. */
  async locate(): Promise<void> {
    const { config } = this.#options;
    if (config.video === 'off') {
      this.#log.info('live video is off (VIDEO=off)');
      return;
    }
    if (config.janusUrl !== null && config.janusApiUrl !== null) {
      this.#client = new JanusClient(config.janusApiUrl, config.janusAdminKey);
      this.#wsUrl = config.janusUrl;
      this.#log.info({ janusUrl: config.janusUrl }, 'live video through an external Janus');
      if (config.janusAdminKey === null)
        this.#log.warn(
          'JANUS_ADMIN_KEY is not set: whoever reaches the external Janus can create mountpoints, and their secrets derive from JWT_SECRET, so rotating it then needs a restart of Janus (docs/operations.md "Secrets")',
        );
    } else if (findJanusBinary() !== null && findJanusLibDir() !== null) {
      const ports = config.janusRtpPorts;
      const supervisor = new JanusSupervisor({
        dataDir: config.dataDir,
        log: this.#log,
        ...(ports === null ? {} : { rtpPortRange: [ports.min, ports.max] as const }),
        publicIp: config.janusPublicIp,
      });
      try {
        await supervisor.start();
      } catch (error) {
        this.#log.error({ err: error }, 'Janus did not start: live video is unavailable');
        return;
      }
      this.#supervisor = supervisor;
      this.#client = new JanusClient(supervisor.httpUrl, supervisor.adminKey);
      this.#wsUrl = supervisor.wsUrl;
      supervisor.on('restarted', () => this.#options.onRestarted());
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
    }
  }

  /** Stops the supervised Janus, if the server runs its own. */
  async stop(): Promise<void> {
    await this.#supervisor?.stop();
  }
}
