/**
 * The video benches' scene (issue 43): the built server with its own Janus and one simulated car
 * (SIM_CARS=1), the car's camera reaching Janus through `udp-range-proxy.ts` — the car's link,
 * impaired — and Chromium playing it on the control page as the car's driver, driving laps, its
 * peer connections recorded for their statistics (video-viewer.ts).
 *
 * How the proxy gets onto the car's link alone: the server tells the car to send its video to
 * `JANUS_RTP_HOST` and, when that is a loopback address, its ingest listens on 127.0.0.1
 * (docs/video.md "The car's uplink"). With JANUS_RTP_HOST=127.0.0.2 the car sends to
 * 127.0.0.2:<port>, where the proxy listens on every port of the ingest's range
 * (VIDEO_INGEST_PORTS), and forwards to 127.0.0.1:<port>; the ingest's feedback (NACKs, reports)
 * comes back through it. The viewer's WebRTC, Janus's REST and the car's socket stay on loopback.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../e2e/chromium.js';
import { driverContext } from './driver-page.js';
import { type Running, startTelerace } from './processes.js';
import { BENCH_SERVER_ENV } from './telerace-api.js';
import {
  type LinkSettings,
  type PortRange,
  startUdpRangeProxy,
  type UdpRangeProxy,
} from './udp-range-proxy.js';
import { recordPeerConnections } from './video-viewer.js';

function portRange(text: string): PortRange {
  const match = /^(\d{1,5})-(\d{1,5})$/.exec(text);
  if (!match) throw new Error(`a port range is LOW-HIGH, got ${JSON.stringify(text)}`);
  return [Number(match[1]), Number(match[2])];
}

/**
 * Where the car's media goes, and the server settings that put it there: the proxy covers
 * `ports` on PROXY_HOST, and the server is started with `portsVariable` = that range and
 * `hostVariable` = PROXY_HOST. The one place to change when the car sends its media elsewhere
 * (an ingest in front of Janus with a port range of its own: its variable here), or, without a
 * change, VIDEO_LINK_PORTS_VARIABLE and VIDEO_LINK_PORTS in the environment. JANUS_RTP_PORTS
 * serves Janus's viewers too (their WebRTC ports), on 127.0.0.1 and the machine's interfaces:
 * the proxy binds only PROXY_HOST, so the two do not meet.
 */
export const CAR_MEDIA = {
  hostVariable: 'JANUS_RTP_HOST',
  portsVariable: process.env.VIDEO_LINK_PORTS_VARIABLE ?? 'VIDEO_INGEST_PORTS',
  ports: portRange(process.env.VIDEO_LINK_PORTS ?? '48100-48119'),
};

/** The proxy's address: loopback (so the mountpoint stays on 127.0.0.1), not 127.0.0.1 itself. */
const PROXY_HOST = '127.0.0.2';
export const VIDEO_SELECTOR = '[data-testid="video"]';

export interface CarVideo {
  /** The control page, playing. */
  page: Page;
  /** The car's link, or null when the car sends straight to Janus. */
  proxy: UdpRangeProxy | null;
  close(): Promise<void>;
}

/**
 * The scene, with the car's link through the proxy set to `link` (null: no proxy, the car sends
 * straight to Janus on loopback), once the page has decoded 30 frames and the car is driving laps
 * (the throttle held; the simulator's steering assist keeps it on the track): a moving picture,
 * as a driven car's camera sees, costs the encoder its bitrate (720 kbit/s sent for 600
 * configured, where a parked car's sends 200).
 */
/**
 * VIDEO_PLAYER_DELAY=`MIN,MAX` (ms): the playout delay the player asks Janus for instead of its own
 * (0,0: no jitter buffer), to compare what Chromium shows with a jitter buffer in the same build.
 */
const PLAYER_DELAY = playerDelay(process.env.VIDEO_PLAYER_DELAY);

function playerDelay(value: string | undefined): { min: number; max: number } | null {
  if (!value) return null;
  const found = /^\s*(\d{1,4})\s*,\s*(\d{1,4})\s*$/.exec(value);
  if (!found) throw new Error(`VIDEO_PLAYER_DELAY: ${JSON.stringify(value)} is not MIN,MAX in ms`);
  return { min: Number(found[1]), max: Number(found[2]) };
}

/** In the page: the player's `configure` asks for `delay` instead. */
function rewritePlayoutDelay(delay: { min: number; max: number }): void {
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data) {
    if (typeof data === 'string' && data.includes('"configure"')) {
      const message = JSON.parse(data) as { body?: { min_delay?: number; max_delay?: number } };
      if (message.body && 'min_delay' in message.body) {
        message.body.min_delay = delay.min;
        message.body.max_delay = delay.max;
        return send.call(this, JSON.stringify(message));
      }
    }
    return send.call(this, data);
  };
}

export async function startCarVideo(
  link: Partial<LinkSettings> | null,
  seed = 43,
  /** More settings for the server and its simulated car (e.g. VIDEO_REPAIR). */
  env: Record<string, string> = {},
): Promise<CarVideo> {
  const [low, high] = CAR_MEDIA.ports;
  let proxy: UdpRangeProxy | null = null;
  let server: Running | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await server?.stop();
    await proxy?.close();
  };
  try {
    if (link) {
      proxy = await startUdpRangeProxy({
        listenHost: PROXY_HOST,
        targetHost: '127.0.0.1',
        ports: CAR_MEDIA.ports,
        link,
        seed,
      });
    }
    server = await startTelerace({
      ...BENCH_SERVER_ENV,
      SIM_CARS: '1',
      VIDEO: 'auto',
      [CAR_MEDIA.portsVariable]: `${low}-${high}`,
      ...(proxy ? { [CAR_MEDIA.hostVariable]: PROXY_HOST } : {}),
      ...env,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const { context, controlPath } = await driverContext(browser, server.url);
    const page = await context.newPage();
    await recordPeerConnections(page);
    if (PLAYER_DELAY) await page.addInitScript(rewritePlayoutDelay, PLAYER_DELAY);
    await page.goto(controlPath);
    await page.waitForFunction(
      () =>
        ((window as unknown as { __teleraceVideo?: { framesDecoded: number } }).__teleraceVideo
          ?.framesDecoded ?? 0) >= 30,
      null,
      { timeout: 60_000 },
    );
    // Driving laps: the throttle held, the simulator's steering assist keeps the car on the track.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.down('w');
    await page.waitForFunction(
      () =>
        Number.parseFloat(document.querySelector('[data-testid="telemetry-speed"]')?.textContent ?? '') > 1,
      null,
      { timeout: 30_000 },
    );
    return { page, proxy, close };
  } catch (error) {
    await close();
    throw error;
  }
}
