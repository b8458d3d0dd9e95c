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
 *
 * VIDEO_LINK=netns (issue 43, root only): the car off loopback, its agent in a network namespace
 * of its own (car-netns.ts), started by the bench instead of the server; loss is the kernel's
 * (nftables at the car's end of the veth pair, each way) and so is the uplink's cap (a `tbf`
 * qdisc there). This kernel has no netem, so the round trip's delay stays in user space: the car
 * is told to send to this machine's end of the pair (JANUS_RTP_HOST; the ingest then listens on
 * every address), a NAT there (`redirectUdp`) turns its datagrams to a delay-only proxy on the
 * same address at the port minus DELAY_PORT_OFFSET, which forwards to the ingest on 127.0.0.1.
 * The car's socket and drive channel cross the pair too (its loss, no added delay).
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../e2e/chromium.js';
import { AgentProcess, agentUnbuilt } from './agent-process.js';
import { type CarNetns, createCarNetns, DEFAULT_UPLINK_SHAPE, netnsUnavailable } from './car-netns.js';
import { driverContext } from './driver-page.js';
import { type Running, startTelerace } from './processes.js';
import { BENCH_SERVER_ENV, createCar, logInAdmin } from './telerace-api.js';
import {
  type LinkSettings,
  type PortRange,
  startUdpRangeProxy,
  type UdpRangeProxy,
} from './udp-range-proxy.js';
import { type EncoderSample, recordEncoderBitrate, recordPeerConnections } from './video-viewer.js';

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
/**
 * VIDEO_LINK=netns: the delay proxy's ports are the ingest's minus this (48100 → 18100): below
 * the 20000–59999 window Janus takes its own ports from, and below the ephemeral ports.
 */
const DELAY_PORT_OFFSET = -30_000;
/** UDP over IPv4 and Ethernet: what the namespace's counts hold beyond the payload. */
const UDP_FRAME_BYTES = 42;
export const VIDEO_SELECTOR = '[data-testid="video"]';

export type VideoLinkMode = 'proxy' | 'netns';

/** VIDEO_LINK: `proxy` (the default) or `netns`. */
export const VIDEO_LINK: VideoLinkMode = videoLinkMode(process.env.VIDEO_LINK);

function videoLinkMode(value: string | undefined): VideoLinkMode {
  if (value === undefined || value === '' || value === 'proxy') return 'proxy';
  if (value === 'netns') return 'netns';
  throw new Error(`VIDEO_LINK: ${JSON.stringify(value)} is not proxy or netns`);
}

/** The car's uplink so far: payload bytes (no IP or UDP header). */
export interface UplinkCounts {
  /** What the car sent (proxy: the media ports; netns: all its UDP, the drive channel's too). */
  sentPackets: number;
  sentBytes: number;
  /** Lost at random. */
  lostPackets: number;
  /** Dropped by the cap's queue, and waiting in it now. */
  queueDropped: number;
  queuedBytes: number;
  /** Arrived at the server's end. */
  deliveredBytes: number;
}

/** What a bench reads and changes on the car's link, whichever makes it. */
export interface CarLink {
  /** For the tables, e.g. `proxy, 80 ms RTT`. */
  readonly label: string;
  /** Random loss each way (0–1). */
  setLoss(loss: number): void;
  /** The uplink capped like `tc … tbf rate R burst 32kb latency 300ms` (kbit/s); null: no cap. */
  setUplinkKbps(rateKbps: number | null): void;
  readonly tbf: { burstBytes: number; latencyMs: number };
  uplink(): Promise<UplinkCounts>;
  /** How late the user-space proxy's timers delivered since the last call (ms). */
  takeMaxLateMs(): number;
}

export interface CarVideo {
  /** The control page, playing. */
  page: Page;
  /** The car's link, or null when the car sends straight to Janus. */
  link: CarLink | null;
  /** The car's encoder bitrate, as its telemetry reaches the page (kept as it comes). */
  encoder: EncoderSample[];
  close(): Promise<void>;
}

function proxyLink(proxy: UdpRangeProxy): CarLink {
  return {
    label: `proxy, ${2 * proxy.up.settings.oneWayMs} ms RTT`,
    setLoss: (loss) => proxy.setLoss(loss),
    setUplinkKbps: (rateKbps) => proxy.setRateKbps(rateKbps, 'up'),
    tbf: proxy.up.settings,
    uplink: async () => {
      const counters = proxy.up.counters;
      return {
        sentPackets: counters.in,
        sentBytes: counters.bytesIn,
        lostPackets: counters.lost,
        queueDropped: counters.queueDropped,
        queuedBytes: proxy.up.queuedBytes,
        deliveredBytes: counters.bytesOut,
      };
    },
    takeMaxLateMs: () => proxy.up.takeMaxLateMs(),
  };
}

/** The kernel's loss and cap in `netns`; `delay`, the proxy that only delays, gets what arrived. */
function netnsLink(netns: CarNetns, delay: UdpRangeProxy): CarLink {
  return {
    label: `netns (kernel loss, tbf) + ${2 * delay.up.settings.oneWayMs} ms RTT`,
    setLoss: (loss) => netns.setLoss(loss),
    setUplinkKbps: (rateKbps) => netns.setUplinkKbps(rateKbps, DEFAULT_UPLINK_SHAPE),
    tbf: DEFAULT_UPLINK_SHAPE,
    uplink: async () => {
      const counts = await netns.uplink();
      return {
        sentPackets: counts.sentPackets,
        sentBytes: counts.sentBytes - UDP_FRAME_BYTES * counts.sentPackets,
        lostPackets: counts.lostPackets,
        queueDropped: counts.queueDropped,
        queuedBytes: counts.queuedBytes,
        deliveredBytes: delay.up.counters.bytesIn,
      };
    },
    takeMaxLateMs: () => delay.up.takeMaxLateMs(),
  };
}

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

/**
 * The scene, with the car's link set to `link`, made as `mode` says (null: no link, the car
 * sends straight to Janus on loopback), once the page has decoded 30 frames and the car is driving laps
 * (the throttle held; the simulator's steering assist keeps it on the track): a moving picture,
 * as a driven car's camera sees, costs the encoder its bitrate (720 kbit/s sent for 600
 * configured, where a parked car's sends 200).
 */
export async function startCarVideo(
  link: Partial<LinkSettings> | null,
  seed = 43,
  /** More settings for the server and its simulated car (e.g. VIDEO_REPAIR). */
  env: Record<string, string> = {},
  mode: VideoLinkMode = VIDEO_LINK,
): Promise<CarVideo> {
  let server: Running | undefined;
  let browser: Browser | undefined;
  const closers: (() => unknown)[] = [];
  const close = async () => {
    await browser?.close();
    for (const closer of closers.splice(0).reverse()) await closer();
    await server?.stop();
  };
  try {
    const car = link && mode === 'netns' ? await carInNetns(link, seed, env, closers) : null;
    let carLink = car?.link ?? null;
    if (link && !car) {
      const proxy = await startUdpRangeProxy({
        listenHost: PROXY_HOST,
        targetHost: '127.0.0.1',
        ports: CAR_MEDIA.ports,
        link,
        seed,
      });
      closers.push(() => proxy.close());
      carLink = proxyLink(proxy);
    }
    server = await startTelerace({
      ...BENCH_SERVER_ENV,
      VIDEO: 'auto',
      [CAR_MEDIA.portsVariable]: CAR_MEDIA.ports.join('-'),
      ...(car ? car.serverEnv : { SIM_CARS: '1' }),
      ...(carLink && !car ? { [CAR_MEDIA.hostVariable]: PROXY_HOST } : {}),
      ...env,
    });
    if (car) await car.start(server.url);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const { page, encoder } = await playingPage(browser, server.url);
    return { page, link: carLink, encoder, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * VIDEO_LINK=netns: the namespace, the delay proxy and the NAT to it (closed through `closers`);
 * the server's settings; and `start`, which runs the car's agent in the namespace once the server
 * is up: a car named as the server's first simulated car ("Sim 1", driver-page.ts finds it).
 */
async function carInNetns(
  link: Partial<LinkSettings>,
  seed: number,
  env: Record<string, string>,
  closers: (() => unknown)[],
) {
  const unavailable = netnsUnavailable() ?? agentUnbuilt();
  if (unavailable) throw new Error(`VIDEO_LINK=netns: ${unavailable}`);
  const netns = createCarNetns();
  closers.push(() => netns.close());
  const delay = await startUdpRangeProxy({
    listenHost: netns.hostIp,
    listenPortOffset: DELAY_PORT_OFFSET,
    targetHost: '127.0.0.1',
    ports: CAR_MEDIA.ports,
    link: { oneWayMs: link.oneWayMs ?? 0, jitterMs: link.jitterMs ?? 0 },
    seed,
  });
  closers.push(() => delay.close());
  netns.redirectUdp(CAR_MEDIA.ports, DELAY_PORT_OFFSET);
  const carLink = netnsLink(netns, delay);
  if (link.loss) carLink.setLoss(link.loss);
  if (link.rateKbps) carLink.setUplinkKbps(link.rateKbps);
  return {
    link: carLink,
    // The car reaches the server, and sends its video, on the pair's address.
    serverEnv: { HOST: '0.0.0.0', [CAR_MEDIA.hostVariable]: netns.hostIp },
    start: async (base: string) => {
      const car = await createCar(base, await logInAdmin(base), 'Sim 1');
      const agent = new AgentProcess(netns, `http://${netns.hostIp}:${new URL(base).port}`, car, {
        args: ['--drive', 'sim'],
        env: { ...process.env, ...env },
      });
      closers.push(async () => {
        await agent.stop();
        if (process.env.VIDEO_LINK_VERBOSE) console.info(agent.notable.join('\n'));
      });
      await agent.next(/welcomed as car/);
    },
  };
}

/**
 * The control page as the car's driver, once it has decoded 30 frames and the car is driving laps
 * (the throttle held; the simulator's steering assist keeps it on the track).
 */
async function playingPage(browser: Browser, base: string) {
  const { context, controlPath } = await driverContext(browser, base);
  const page = await context.newPage();
  await recordPeerConnections(page);
  const encoder = recordEncoderBitrate(page);
  if (PLAYER_DELAY) await page.addInitScript(rewritePlayoutDelay, PLAYER_DELAY);
  await page.goto(controlPath);
  await page.waitForFunction(
    () =>
      ((window as unknown as { __teleraceVideo?: { framesDecoded: number } }).__teleraceVideo
        ?.framesDecoded ?? 0) >= 30,
    null,
    { timeout: 60_000 },
  );
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.down('w');
  await page.waitForFunction(
    () => Number.parseFloat(document.querySelector('[data-testid="telemetry-speed"]')?.textContent ?? '') > 1,
    null,
    { timeout: 30_000 },
  );
  return { page, encoder };
}
