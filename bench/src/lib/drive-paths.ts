/**
 * The ways a driver's commands reach the server, for the loss bench (lossy.bench.ts): each opens
 * a driver on a car over an impaired link and sends drives on it.
 */
import { DRIVE_CHANNEL } from '@telerace/protocol';
import type WebSocket from 'ws';
import {
  type ImpairedUdpProxy,
  type Impairment,
  startImpairedTcpProxy,
  startImpairedUdpProxy,
} from './impairment.js';
import { openSocket } from './relay-clients.js';
import { takeCarWithCode } from './telerace-api.js';

export interface DriverOnLink {
  drive(throttle: number): void;
  close(): void;
  /** False when the path could only be opened with the loss lifted (see datachannelPath). */
  openedOverLink?: boolean;
}

export interface DrivePath {
  name: string;
  /** Whether this server speaks the path at all. */
  available(base: string): Promise<boolean>;
  open(options: {
    base: string;
    admin: string;
    member: string;
    carId: number;
    link: Impairment;
  }): Promise<DriverOnLink>;
}

/** The controller socket's address on `socketBase`, for a member holding `carId`. */
export const controllerSocketUrl = (
  socketBase: string,
  carId: number,
  member: string,
  controlToken: string,
) =>
  `${socketBase.replace(/^http/, 'ws')}/rcsocket?type=controller&car=${carId}&control_token=${encodeURIComponent(controlToken)}&token=${encodeURIComponent(member)}`;

/** Drives on the controller socket, its TCP connection through the impaired link. */
const websocketPath: DrivePath = {
  name: 'websocket',
  available: async () => true,
  async open({ base, admin, member, carId, link }) {
    const controlToken = (await takeCarWithCode(base, admin, carId, member)).controlToken;
    const proxy = await startImpairedTcpProxy(Number(new URL(base).port), link);
    // The origin is the site's own: the proxy is the network, not another site.
    const socket = await openSocket(
      controllerSocketUrl(`http://127.0.0.1:${proxy.port}`, carId, member, controlToken),
      { origin: base },
    );
    return {
      drive: (throttle) => socket.send(JSON.stringify({ type: 'drive', throttle, steer: 0 })),
      close: () => {
        socket.close();
        void proxy.close();
      },
    };
  },
};

/** The server's answer, its candidates moved to proxies that carry their UDP over `link`. */
export async function answerThroughProxies(
  sdp: string,
  link: Impairment,
  proxies: ImpairedUdpProxy[],
  /** The first proxy's random seed (the next ones count up from it): each trial its own luck. */
  seed = 1,
): Promise<string> {
  const lines: string[] = [];
  for (const line of sdp.split('\r\n')) {
    const candidate = line.match(
      /^(a=candidate:\S+ \d+ udp \d+ )(\d{1,3}(?:\.\d{1,3}){3}) (\d+)( typ host.*)$/i,
    );
    if (line.startsWith('a=candidate') && !candidate) continue; // only IPv4 UDP host candidates, each through a proxy
    if (candidate) {
      const target = { host: candidate[2] as string, port: Number(candidate[3]) };
      const proxy = await startImpairedUdpProxy(target, link, seed + proxies.length);
      proxies.push(proxy);
      lines.push(`${candidate[1]}127.0.0.1 ${proxy.port}${candidate[4]}`);
    } else lines.push(line);
  }
  return lines.join('\r\n');
}

/**
 * Drives on the control DataChannel (unordered, no retransmits), its UDP through the impaired
 * link; the control socket (signalling only here) on the good link. The peer sends no candidates
 * of its own: the server learns the proxy's address from the connectivity checks, so every packet
 * of the channel crosses the link.
 */
const datachannelPath: DrivePath = {
  name: 'datachannel',
  available: async () => true,
  async open(options) {
    // The link object is read for every packet: the loss can be lifted for a handshake.
    const link = { ...options.link };
    try {
      return { ...(await openDataChannel({ ...options, link }, OPEN_OVER_LINK_MS)), openedOverLink: true };
    } catch {
      // werift's handshake (DTLS, SCTP) does not always complete through the loss: opened on a
      // clean link, then measured on the lossy one (the commands are what this bench measures).
      const clean = { ...link, loss: 0 };
      const driver = await openDataChannel({ ...options, link: clean }, 20_000);
      clean.loss = link.loss;
      return { ...driver, openedOverLink: false };
    }
  },
};

/** How long the channel may take to open over the impaired link before the bench lifts the loss. */
const OPEN_OVER_LINK_MS = 10_000;

async function openDataChannel(
  { base, admin, member, carId, link }: Parameters<DrivePath['open']>[0],
  timeoutMs: number,
): Promise<DriverOnLink> {
  const { RTCPeerConnection } = await import('werift');
  const controlToken = (await takeCarWithCode(base, admin, carId, member)).controlToken;
  const socket: WebSocket = await openSocket(controllerSocketUrl(base, carId, member, controlToken), {
    origin: base,
  });
  const proxies: ImpairedUdpProxy[] = [];
  const peer = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false });
  const channel = peer.createDataChannel(DRIVE_CHANNEL.label, { ...DRIVE_CHANNEL.options });
  const close = () => {
    void peer.close();
    socket.close();
    for (const proxy of proxies) void proxy.close();
  };
  const opened = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the drive channel did not open within ${timeoutMs} ms`)),
      timeoutMs,
    );
    channel.stateChanged.subscribe((state) => {
      if (state !== 'open') return;
      clearTimeout(timer);
      resolve();
    });
  });
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { type: string; sdp?: string };
    if (message.type !== 'rtc_answer' || !message.sdp) return;
    void answerThroughProxies(message.sdp, link, proxies).then((sdp) =>
      peer.setRemoteDescription({ type: 'answer', sdp }),
    );
  });
  await peer.setLocalDescription(await peer.createOffer());
  const offer = (peer.localDescription?.sdp ?? '')
    .split('\r\n')
    .filter((line) => !line.startsWith('a=candidate') && line !== 'a=end-of-candidates')
    .join('\r\n');
  socket.send(JSON.stringify({ type: 'rtc_offer', sdp: offer }));
  try {
    await opened;
  } catch (error) {
    close();
    throw error;
  }
  let seq = 0;
  return {
    drive: (throttle) => {
      seq += 1;
      channel.send(JSON.stringify({ type: 'drive', throttle, steer: 0, seq }));
    },
    close,
  };
}

export const DRIVE_PATHS: DrivePath[] = [websocketPath, datachannelPath];
