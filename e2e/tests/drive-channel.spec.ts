/**
 * The drive channel (issue 27) in a real browser: the control page opens a WebRTC DataChannel to
 * the server (unordered, no retransmissions, its host candidates hidden behind mDNS names as
 * Chromium does), holding W drives the simulated car over it while the control WebSocket carries
 * no drive at all, and when the channel closes the drives go over the WebSocket within a second,
 * the driver noticing nothing. The car's own safety bounds on this path are asserted with real
 * processes in apps/server/src/modules/control/safety.once.test.ts.
 */
import { expect, type Page, test } from './fixtures.js';
import {
  acceptCookies,
  carWithCode,
  connectWithCode,
  freeCar,
  logIn,
  newMember,
  signUp,
  speed,
} from './support.js';

/** What the page's drive channels did, recorded by watchDriveChannels. */
interface ChannelRecord {
  readyState: string;
  ordered: boolean;
  maxRetransmits: number | null;
  /** From createDataChannel to open, in ms (null: not open yet). */
  openMs: number | null;
  acks: number;
  /** Throttle of each drive sent on the channel. */
  throttles: number[];
}

/** Before any page script: every DataChannel the page makes is recorded, with what it sends and hears. */
async function watchDriveChannels(page: Page): Promise<void> {
  await page.addInitScript(() => {
    type Recorded = {
      channel: RTCDataChannel;
      createdAt: number;
      openedAt: number | null;
      acks: number;
      throttles: number[];
    };
    const recorded: Recorded[] = [];
    (window as unknown as { __driveChannels: Recorded[] }).__driveChannels = recorded;
    const create = RTCPeerConnection.prototype.createDataChannel;
    RTCPeerConnection.prototype.createDataChannel = function (label, options) {
      const channel = create.call(this, label, options);
      // Only the drive channel (the video's player may make channels of its own).
      if (label !== 'drive') return channel;
      const record: Recorded = {
        channel,
        createdAt: performance.now(),
        openedAt: null,
        acks: 0,
        throttles: [],
      };
      channel.addEventListener('open', () => {
        record.openedAt = performance.now();
      });
      channel.addEventListener('message', (event) => {
        if (String(event.data).includes('"drive-ack"')) record.acks += 1;
      });
      const send = channel.send.bind(channel) as (data: string) => void;
      // The page sends JSON text only.
      channel.send = ((data: string) => {
        record.throttles.push((JSON.parse(data) as { throttle: number }).throttle);
        send(data);
      }) as RTCDataChannel['send'];
      recorded.push(record);
      return channel;
    };
  });
}

/** The page's latest drive channel. */
function lastChannel(page: Page): Promise<ChannelRecord | null> {
  return page.evaluate(() => {
    const records = (window as unknown as { __driveChannels?: Array<Record<string, never>> }).__driveChannels;
    const record = records?.at(-1) as
      | {
          channel: RTCDataChannel;
          createdAt: number;
          openedAt: number | null;
          acks: number;
          throttles: number[];
        }
      | undefined;
    if (!record) return null;
    const { channel } = record;
    return {
      readyState: channel.readyState,
      ordered: channel.ordered,
      maxRetransmits: channel.maxRetransmits,
      openMs: record.openedAt === null ? null : Math.round(record.openedAt - record.createdAt),
      acks: record.acks,
      throttles: [...record.throttles],
    };
  });
}

/** Drives the page sends on its control WebSocket, each with the time it left (Date.now()). */
function socketDrives(page: Page): Array<{ at: number; throttle: number }> {
  const drives: Array<{ at: number; throttle: number }> = [];
  page.on('websocket', (socket) => {
    if (!socket.url().includes('/rcsocket')) return;
    socket.on('framesent', ({ payload }) => {
      const message = JSON.parse(String(payload)) as { type?: string; throttle?: number };
      if (message.type === 'drive') drives.push({ at: Date.now(), throttle: message.throttle ?? 0 });
    });
  });
  return drives;
}

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

test('drives over the DataChannel, and over the WebSocket within a second once it closes', async ({
  page,
  request,
}) => {
  const member = newMember('channel');
  await signUp(request, member);
  const car = await carWithCode(request, 'Sim 6');
  await watchDriveChannels(page);
  const overSocket = socketDrives(page);
  await logIn(page, member.email, member.password);
  await connectWithCode(page, car);

  // The page opens the channel by itself, and the server acknowledges what it carries.
  await expect.poll(async () => (await lastChannel(page))?.acks ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
  const opened = await lastChannel(page);
  expect(opened).toMatchObject({ readyState: 'open', ordered: false, maxRetransmits: 0 });
  console.info(`drive channel open ${opened?.openMs} ms after it was made (loopback)`);

  // W drives the car over the channel: the WebSocket carries no drive meanwhile.
  const socketDrivesBefore = overSocket.length;
  await page.keyboard.down('w');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeGreaterThan(1);
  expect((await lastChannel(page))?.throttles).toContain(1);
  expect(overSocket.slice(socketDrivesBefore)).toEqual([]);

  // The channel closes: the next drive goes over the WebSocket, well within a second.
  const closedAt = Date.now();
  await page.evaluate(() =>
    (window as unknown as { __driveChannels: Array<{ channel: RTCDataChannel }> }).__driveChannels
      .at(-1)
      ?.channel.close(),
  );
  await expect
    .poll(() => overSocket.some((drive) => drive.at >= closedAt && drive.throttle === 1))
    .toBe(true);
  const fallbackMs = (overSocket.find((drive) => drive.at >= closedAt)?.at ?? Number.NaN) - closedAt;
  console.info(`drive channel closed → drive on the WebSocket: ${fallbackMs} ms`);
  expect(fallbackMs).toBeLessThan(1_000);
  expect(await speed(page)).toBeGreaterThan(1);

  // Driving goes on: releasing W stops the car (over whichever path works by then).
  await page.keyboard.up('w');
  await expect.poll(() => speed(page), { timeout: 10_000 }).toBeLessThan(0.1);
  await freeCar(request, car.id);
});
