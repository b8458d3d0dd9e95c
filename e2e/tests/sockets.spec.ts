/**
 * The browser's sockets and the access token (issue 10): the server closes a socket when the token
 * that opened it expires, so the page must hand every refreshed token to its open sockets
 * (`auth {token}`). Access tokens live 10 s in these runs, so a page outlives its first token in
 * seconds on the real server. A log-out in another tab of the same browser (the same session)
 * closes the socket, and the page does not open it again.
 */
import { expect, type Page, test, type WebSocket } from './fixtures.js';
import { acceptCookies, expiredOnServer, logIn, newMember, signUp, translations } from './support.js';

const { en } = translations();

interface SeenSocket {
  url: string;
  sent: string[];
  /** What the server sent, parsed, with when it arrived (this machine's clock). */
  received: { message: { type: string; timestamp?: number }; at: number }[];
  closed: boolean;
}

/** Every event socket the page opens, with what it sent and heard and whether it closed. */
function watchEventSockets(page: Page): SeenSocket[] {
  const seen: SeenSocket[] = [];
  page.on('websocket', (ws: WebSocket) => {
    if (!ws.url().includes('/api/race-ws')) return;
    const entry: SeenSocket = { url: ws.url(), sent: [], received: [], closed: false };
    seen.push(entry);
    ws.on('framesent', (frame) => entry.sent.push(String(frame.payload)));
    ws.on('framereceived', (frame) =>
      entry.received.push({ message: JSON.parse(String(frame.payload)), at: Date.now() }),
    );
    ws.on('close', () => {
      entry.closed = true;
    });
  });
  return seen;
}

const open = (seen: SeenSocket[]) => seen.filter((s) => !s.closed);
const auths = (socket: SeenSocket | undefined) =>
  (socket?.sent ?? []).filter((text) => (JSON.parse(text) as { type: string }).type === 'auth');
/** Pongs to the page's pings sent after `since` (a ping carries the page's time, its pong echoes it). */
const pongsSince = (socket: SeenSocket, since: number) =>
  socket.received.filter(({ message }) => message.type === 'pong' && (message.timestamp ?? 0) > since);

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

test('the event socket outlives its access token: the page hands it each refreshed token', async ({
  page,
  request,
}) => {
  const member = newMember('socket');
  await signUp(request, member);
  const seen = watchEventSockets(page);
  await logIn(page, member.email, member.password);
  await expect.poll(() => open(seen).length).toBe(1);
  const socket = open(seen)[0] as SeenSocket;
  const firstToken = new URL(socket.url).searchParams.get('token') ?? '';

  // Once the server refuses the token the socket opened with, the socket still answers a ping the
  // page sent after that: the server would have closed it had the page not handed it a newer one.
  await expiredOnServer(request, firstToken);
  const expiredBy = Date.now();
  await expect.poll(() => pongsSince(socket, expiredBy).length).toBeGreaterThan(0);
  expect(socket.closed).toBe(false);
  expect(open(seen)).toHaveLength(1);
  expect(auths(socket).length).toBeGreaterThanOrEqual(1);
  expect(socket.received.some(({ message }) => message.type === 'auth_ok')).toBe(true);
});

test('a log-out in another tab closes the event socket of the same session for good', async ({
  context,
  page,
  request,
}) => {
  const member = newMember('logout');
  await signUp(request, member);
  // The page's timers on a clock the test moves (it runs on its own until then).
  await page.clock.install();
  const seen = watchEventSockets(page);
  await logIn(page, member.email, member.password);
  await expect.poll(() => open(seen).length).toBe(1);

  // The second tab restores the same session from the shared refresh cookie, then logs out.
  const other = await context.newPage();
  await other.goto('/');
  await other.getByRole('banner').getByRole('button', { name: en.topbar.logout }).click();
  await expect(other).toHaveURL(/\/login$/);

  await expect.poll(() => open(seen).length, { timeout: 5_000 }).toBe(0);
  const opened = seen.length;
  // Not opened again: 20 s of the page's timers run at once — every reconnection delay (at most
  // 8 s) and a session re-check (every 10 s) — and no socket is opened. (The first tab's page goes
  // to /login once its token cannot be renewed.)
  await page.clock.runFor(20_000);
  await page.evaluate(() => undefined);
  expect(open(seen)).toHaveLength(0);
  expect(seen.length).toBe(opened);
});
