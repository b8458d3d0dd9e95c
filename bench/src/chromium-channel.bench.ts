/**
 * `npm run bench -- chromium-channel`: how long Chromium's drive channel (issue 27) takes to open
 * over a mobile link, DTLS and SCTP handshakes included — the lossy bench uses werift on both
 * ends, this one the real page in Debian's Chromium. The built server and a protocol car; the
 * admin holds the car and the control page is loaded again for each trial (a new socket, a new
 * offer). The page's control socket is routed (Playwright's routeWebSocket): the server's answer
 * gets its candidates moved to UDP proxies carrying the link (lib/impairment.ts: 80 ms RTT, up to
 * 10 ms jitter, 0 / 2 / 5 / 10 % loss each way, seeded), and the page's own candidates are not
 * passed on, so the server learns the proxy's address from the connectivity checks and every
 * packet of the channel crosses the link. Reported per loss rate: the time from the channel's
 * creation to its opening (p50, p90, max) and how many opened within the page's patience
 * (CHANNEL_OPEN_LIMIT_MS) — the page drives over the socket until then, so a slow handshake costs
 * the channel's benefit, not a drive. Baseline in the same run: 0 % loss. The server's first
 * channel (which starts its worker and loads werift) is timed apart, before the rows.
 * Options (environment): CHROMIUM_TRIALS (8 per loss rate).
 */
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium.js';
import { answerThroughProxies } from './lib/drive-paths.js';
import type { ImpairedUdpProxy, Impairment } from './lib/impairment.js';
import { startTelerace } from './lib/processes.js';
import { connectCar } from './lib/relay-clients.js';
import { printTable, round, writeResult } from './lib/report.js';
import { percentile, summarize } from './lib/stats.js';
import { BENCH_ADMIN, BENCH_SERVER_ENV, createCar, logInAdmin, takeCarWithCode } from './lib/telerace-api.js';

const TRIALS = Number(process.env.CHROMIUM_TRIALS ?? 8);
const LOSSES = [0, 0.02, 0.05, 0.1];
const ONE_WAY_MS = 40;
const JITTER_MS = 10;
/** A trial whose channel is not open by then counts as not opened. */
const CHANNEL_OPEN_LIMIT_MS = 15_000;

/** Before any page script: when the page's drive channel was made and when it opened. */
async function watchDriveChannel(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const times: { createdAt: number; openedAt: number | null } = { createdAt: 0, openedAt: null };
    (window as unknown as { __driveChannel: typeof times }).__driveChannel = times;
    const create = RTCPeerConnection.prototype.createDataChannel;
    RTCPeerConnection.prototype.createDataChannel = function (label, options) {
      const channel = create.call(this, label, options);
      if (label !== 'drive' || times.createdAt) return channel;
      times.createdAt = performance.now();
      channel.addEventListener('open', () => {
        times.openedAt = performance.now();
      });
      return channel;
    };
  });
}

/** From the channel's creation to its opening, in ms, or null when it did not open within the limit. */
async function openTime(page: Page): Promise<number | null> {
  const handle = await page
    .waitForFunction(
      () => {
        const times = (
          window as unknown as { __driveChannel?: { createdAt: number; openedAt: number | null } }
        ).__driveChannel;
        return times?.openedAt ? times.openedAt - times.createdAt : null;
      },
      undefined,
      { timeout: CHANNEL_OPEN_LIMIT_MS, polling: 50 },
    )
    .catch(() => null);
  return handle ? ((await handle.jsonValue()) as number) : null;
}

/** The control socket through Playwright: answers rewritten to the link's proxies, the page's candidates kept back. */
async function routeSignalling(
  page: Page,
  link: () => Impairment,
  proxies: ImpairedUdpProxy[],
): Promise<void> {
  let answers = 0;
  await page.routeWebSocket(/\/rcsocket\?/, (route) => {
    const server = route.connectToServer();
    route.onMessage((message) => {
      if (typeof message === 'string' && message.includes('"rtc_candidate"')) return;
      server.send(message);
    });
    server.onMessage((message) => {
      if (typeof message !== 'string' || !message.includes('"rtc_answer"')) {
        route.send(message);
        return;
      }
      const answer = JSON.parse(message) as { type: string; sdp: string };
      answers += 1;
      // Each page load meets its own losses (the same seed would drop the same packets every time).
      void answerThroughProxies(answer.sdp, link(), proxies, answers * 100).then((sdp) =>
        route.send(JSON.stringify({ ...answer, sdp })),
      );
    });
  });
}

interface Row {
  loss_percent: number;
  trials: number;
  opened: number;
  open_p50_ms: number;
  open_p90_ms: number;
  open_max_ms: number;
}

export async function chromiumChannelBench(): Promise<void> {
  const telerace = await startTelerace(BENCH_SERVER_ENV);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const proxies: ImpairedUdpProxy[] = [];
  const rows: Row[] = [];
  let firstOpenMs: number | null = null;
  try {
    const admin = await logInAdmin(telerace.url);
    const car = await createCar(telerace.url, admin, 'Chromium channel');
    const carSocket = await connectCar(telerace.url, car);
    const context = await browser.newContext({ baseURL: telerace.url });
    // The refresh cookie the page signs in with.
    const login = await context.request.post('/api/login', { data: { ...BENCH_ADMIN, recaptchaToken: '' } });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const connected = await takeCarWithCode(telerace.url, admin, car.id, accessToken);
    await context.addInitScript(
      ([key, token]) => window.sessionStorage.setItem(key as string, token as string),
      [`controlToken:${car.id}`, connected.controlToken],
    );
    await context.addCookies([{ name: 'telerace_cookie_consent', value: '1', url: telerace.url }]);
    const page = await context.newPage();
    await watchDriveChannel(page);
    let link: Impairment = { oneWayMs: ONE_WAY_MS, jitterMs: JITTER_MS, loss: 0 };
    await routeSignalling(page, () => link, proxies);
    // The server's first offer starts its drive channel worker and loads werift: timed apart.
    const control = `/control/${car.id}/${connected.car.stream_id}`;
    await page.goto(control);
    firstOpenMs = await openTime(page);
    for (const proxy of proxies.splice(0)) await proxy.close();
    for (const loss of LOSSES) {
      link = { oneWayMs: ONE_WAY_MS, jitterMs: JITTER_MS, loss };
      const times: number[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        await page.goto(control);
        const opened = await openTime(page);
        if (opened !== null) times.push(opened);
        // An open channel whose packets did not cross the link would measure loopback, not the link.
        if (opened !== null && !proxies.some((proxy) => proxy.carried > 0))
          throw new Error('the drive channel opened without crossing the impaired link');
        for (const proxy of proxies.splice(0)) await proxy.close();
      }
      const s = summarize(times);
      rows.push({
        loss_percent: loss * 100,
        trials: TRIALS,
        opened: times.length,
        open_p50_ms: round(s.p50, 0),
        open_p90_ms: round(
          percentile(
            [...times].sort((a, b) => a - b),
            90,
          ),
          0,
        ),
        open_max_ms: round(s.max, 0),
      });
    }
    carSocket.close();
  } finally {
    for (const proxy of proxies) await proxy.close();
    await browser.close();
    await telerace.stop();
  }
  printTable(
    `Chromium's drive channel opening over ${2 * ONE_WAY_MS} ms RTT (+≤${JITTER_MS} ms jitter), ${TRIALS} page loads per row`,
    rows.map((row) => ({
      'loss each way': `${row.loss_percent} %`,
      opened: `${row.opened}/${row.trials}`,
      'open p50 ms': row.open_p50_ms,
      'open p90 ms': row.open_p90_ms,
      'open max ms': row.open_max_ms,
    })),
  );
  console.info(
    `first channel after the server started (worker and werift loaded), 0 % loss: ${firstOpenMs === null ? 'not open' : round(firstOpenMs, 0)} ms`,
  );
  const result = {
    rtt_ms: 2 * ONE_WAY_MS,
    jitter_ms: JITTER_MS,
    first_open_ms: firstOpenMs === null ? null : round(firstOpenMs, 0),
    rows,
  };
  console.info(`written: ${writeResult('chromium-channel', result)}`);
}
