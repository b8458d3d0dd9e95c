/**
 * The real car agent (apps/car's CarAgent, in this process so that its clock is the driver's) on
 * an impaired link, for the loss bench's car leg (issue 42): its car socket through an impaired
 * TCP proxy, its drive channel's UDP through impaired UDP proxies (the server's answer moved to
 * them), a backend that only records. What it reports: each command the agent applied (the newest
 * of both paths, as it drives the car) and its deadman trips.
 */
import { CarAgent } from '@telerace/car/src/agent.js';
import { resolveSettings } from '@telerace/car/src/settings.js';
import { answerThroughProxies } from './drive-paths.js';
import { type ImpairedUdpProxy, type Impairment, startImpairedTcpProxy } from './impairment.js';
import type { CreatedCar } from './telerace-api.js';

export interface AgentOnLink {
  /** Called with the throttle of every drive the agent applies, when it applies it. */
  onApplied(listener: (throttle: number) => void): void;
  /** Times the agent went to neutral on its own deadman so far. */
  deadmanTrips(): number;
  /** The drive channel opened (with `channel`), over the link's loss or with it lifted. */
  openedOverLink: boolean;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** How long the channel may take to open through the loss before the loss is lifted for it. */
const OPEN_OVER_LINK_MS = 12_000;

export async function startAgentOnLink(
  base: string,
  car: CreatedCar,
  link: Impairment,
  { channel, seed }: { channel: boolean; seed: number },
): Promise<AgentOnLink> {
  // Read for every packet: the loss can be lifted while the channel's handshake runs.
  const carLink = { ...link };
  const tcp = await startImpairedTcpProxy(Number(new URL(base).port), carLink);
  const proxies: ImpairedUdpProxy[] = [];
  const settings = {
    ...resolveSettings({
      server: `http://127.0.0.1:${tcp.port}`,
      car: String(car.id),
      secret: car.secret,
      camera: 'none',
    }),
    driveChannel: channel,
  };
  const lines: string[] = [];
  const agent = new CarAgent(settings, {
    backend: { apply() {}, neutral() {}, close: async () => {} },
    log: (line) => lines.push(line),
    exit: () => {},
    takeChannelAnswer: (sdp) => answerThroughProxies(sdp, carLink, proxies, seed),
  });
  const listeners: ((throttle: number) => void)[] = [];
  // What the agent applies, as it applies it: Driver.drive runs only for the newest command.
  const drive = agent.driver.drive.bind(agent.driver);
  agent.driver.drive = (throttle, steer) => {
    for (const listener of listeners) listener(throttle);
    drive(throttle, steer);
  };
  agent.start();
  const close = async () => {
    await agent.stop();
    await tcp.close();
    for (const proxy of proxies) await proxy.close();
  };
  let openedOverLink = true;
  try {
    if (!(await until(() => agent.link.isWelcomed, 30_000)))
      throw new Error('the car agent was not welcomed');
    if (channel && !(await until(() => agent.channel.state === 'open', OPEN_OVER_LINK_MS))) {
      openedOverLink = false;
      carLink.loss = 0;
      if (!(await until(() => agent.channel.state === 'open', 40_000)))
        throw new Error(`the car's drive channel did not open: ${lines.slice(-3).join(' / ')}`);
      carLink.loss = link.loss;
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    onApplied: (listener) => listeners.push(listener),
    deadmanTrips: () => lines.filter((line) => line.includes('neutral (deadman')).length,
    openedOverLink,
    close,
  };
}
