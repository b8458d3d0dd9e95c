/**
 * A small client of the Janus streaming plugin over Janus's HTTP REST API (plain fetch). Each call
 * is a short-lived session: create → attach `janus.plugin.streaming` → message → destroy, so no
 * keepalive is needed. Errors from Janus become a `JanusError` carrying Janus's code (core codes
 * such as 458 "no such session", or the plugin's: 453 missing element, e.g. no admin key;
 * 455 no such mountpoint; 457 unauthorized, e.g. a wrong secret or pin).
 */
import { randomBytes } from 'node:crypto';
import type { VideoCodec } from '@telerace/protocol';

export const STREAMING_PLUGIN = 'janus.plugin.streaming';
const REQUEST_TIMEOUT_MS = 10_000;

export class JanusError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`Janus error ${code}: ${message}`);
    this.name = 'JanusError';
  }
}

export interface CreateMountpointOptions {
  /** The car's `stream_id`. */
  id: number;
  pin: string;
  secret: string;
  codec: VideoCodec;
  /** Address the RTP port listens on; undefined: every interface. */
  iface?: string;
  /**
   * The SRTP master key and salt (base64 of 30 bytes, AES_CM_128_HMAC_SHA1_80): Janus then drops
   * every packet not encrypted and authenticated with it, and replays of those that were.
   */
  srtpKey?: string;
}

export interface MountpointSummary {
  id: number;
  description?: string;
  enabled?: boolean;
  [key: string]: unknown;
}

type JanusMessage = Record<string, unknown> & {
  janus?: string;
  data?: { id?: number };
  error?: { code?: number; reason?: string };
  plugindata?: { plugin?: string; data?: Record<string, unknown> };
};

const transaction = (): string => randomBytes(9).toString('base64url');

/** The plugin's error as a JanusError, or the data itself. */
function pluginData(message: JanusMessage): Record<string, unknown> {
  const data = message.plugindata?.data;
  if (!data) throw new JanusError(0, `unexpected answer ${JSON.stringify(message).slice(0, 200)}`);
  if (typeof data.error_code === 'number') throw new JanusError(data.error_code, String(data.error ?? ''));
  return data;
}

export class JanusClient {
  /** `httpUrl`: the REST base, e.g. `http://127.0.0.1:8088/janus`. */
  constructor(
    readonly httpUrl: string,
    readonly adminKey: string | null,
  ) {}

  async #post(path: string, body: Record<string, unknown>): Promise<JanusMessage> {
    const response = await fetch(`${this.httpUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, transaction: transaction() }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const message = (await response.json()) as JanusMessage;
    if (message.janus === 'error')
      throw new JanusError(message.error?.code ?? 0, message.error?.reason ?? 'unknown error');
    return message;
  }

  /** Janus's `/info`: the cheapest request it answers (the liveness check without mountpoints). */
  async serverInfo(): Promise<void> {
    const response = await fetch(`${this.httpUrl}/info`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const message = (await response.json()) as JanusMessage;
    if (message.janus !== 'server_info')
      throw new JanusError(0, `unexpected answer to /info: ${message.janus}`);
  }

  /** A new session with one streaming handle (the caller must `close` it). */
  async openHandle(): Promise<{ session: number; handle: number; close: () => Promise<void> }> {
    const created = await this.#post('', { janus: 'create' });
    const session = created.data?.id;
    if (typeof session !== 'number') throw new JanusError(0, 'no session id');
    const close = async () => {
      await this.#post(`/${session}`, { janus: 'destroy' }).catch(() => {});
    };
    try {
      const attached = await this.#post(`/${session}`, { janus: 'attach', plugin: STREAMING_PLUGIN });
      const handle = attached.data?.id;
      if (typeof handle !== 'number') throw new JanusError(0, 'no handle id');
      return { session, handle, close };
    } catch (error) {
      await close();
      throw error;
    }
  }

  /** Sends a message on a handle; synchronous requests answer with `success`, others with `ack`. */
  async message(session: number, handle: number, body: Record<string, unknown>): Promise<JanusMessage> {
    return this.#post(`/${session}/${handle}`, { janus: 'message', body });
  }

  /** The next event of a session (REST long poll; Janus answers a keepalive after ~30 s). */
  async nextEvent(session: number): Promise<JanusMessage> {
    const response = await fetch(`${this.httpUrl}/${session}?maxev=1&rid=${Date.now()}`, {
      signal: AbortSignal.timeout(60_000),
    });
    const message = (await response.json()) as JanusMessage;
    if (message.janus === 'error')
      throw new JanusError(message.error?.code ?? 0, message.error?.reason ?? 'unknown error');
    return message;
  }

  /** One synchronous streaming request on a short-lived session. */
  async request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { session, handle, close } = await this.openHandle();
    try {
      return pluginData(await this.message(session, handle, body));
    } finally {
      await close();
    }
  }

  #withAdminKey(body: Record<string, unknown>): Record<string, unknown> {
    return this.adminKey === null ? body : { ...body, admin_key: this.adminKey };
  }

  /** Creates a non-permanent RTP mountpoint; Janus picks the video port from its range. */
  async createMountpoint(options: CreateMountpointOptions): Promise<{ id: number; port: number }> {
    const data = await this.request(
      this.#withAdminKey({
        request: 'create',
        type: 'rtp',
        id: options.id,
        description: `car stream ${options.id}`,
        media: [
          {
            type: 'video',
            mid: 'v',
            port: 0,
            ...(options.iface === undefined ? {} : { iface: options.iface }),
            pt: 96,
            codec: options.codec,
            // Constrained baseline (42e0) at level 4 (28): 1280×720 at 60 fps, which level 3.1 (1f)
            // stops at 30; the same level the Pi's hardware encoder is set to. Chromium answers 3.1
            // whatever is offered, and decodes the stream all the same (docs/video.md).
            fmtp: 'profile-level-id=42e028;packetization-mode=1',
            // Janus keeps the latest keyframe and sends it to a new viewer at once, instead of
            // leaving the picture black until the camera's next one (up to a second).
            bufferkf: true,
          },
        ],
        // Every medium of the mountpoint: Janus (libsrtp) decrypts and authenticates each packet.
        ...(options.srtpKey === undefined ? {} : { srtpsuite: 80, srtpcrypto: options.srtpKey }),
        secret: options.secret,
        pin: options.pin,
        // Not in the plugin's public `list`: nobody needs to discover the cars' streams.
        is_private: true,
        // Offers the playout-delay RTP header extension: the player asks for none (`configure`,
        // min_delay = max_delay = 0), and Chromium then shows each frame as soon as it is decoded
        // instead of holding it in its jitter buffer (docs/video.md "Latency").
        playoutdelay_ext: true,
        permanent: false,
      }),
    );
    const created = data.stream as { id?: number; ports?: { port?: number }[] } | undefined;
    const port = created?.ports?.[0]?.port;
    if (typeof port !== 'number') throw new JanusError(0, `no port in ${JSON.stringify(data).slice(0, 200)}`);
    return { id: options.id, port };
  }

  /**
   * A new PIN, then every current viewer evicted. A new PIN alone only stops whoever starts
   * watching from now on; `kick_all` (streaming plugin; Janus 1.1.2 here) tells each viewer's handle
   * `kicked_all` and closes its PeerConnection. In that order, on one short-lived handle: an
   * evicted viewer cannot start again with the old PIN, and the mountpoint and its port stay, so
   * the car streams on unchanged.
   */
  async changePinAndEvict(id: number, secret: string, pin: string): Promise<void> {
    const { session, handle, close } = await this.openHandle();
    try {
      pluginData(
        await this.message(session, handle, { request: 'edit', id, secret, new_pin: pin, permanent: false }),
      );
      pluginData(await this.message(session, handle, { request: 'kick_all', id, secret }));
    } finally {
      await close();
    }
  }

  async destroyMountpoint(id: number, secret: string): Promise<void> {
    await this.request({ request: 'destroy', id, secret, permanent: false });
  }

  async listMountpoints(): Promise<MountpointSummary[]> {
    const data = await this.request(this.#withAdminKey({ request: 'list' }));
    return (data.list as MountpointSummary[] | undefined) ?? [];
  }

  /** The mountpoint's details (with the secret: ports and more). */
  async info(id: number, secret: string): Promise<Record<string, unknown>> {
    const data = await this.request({ request: 'info', id, secret });
    return (data.info as Record<string, unknown> | undefined) ?? {};
  }
}
