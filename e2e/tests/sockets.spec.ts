/**
 * The browser's sockets and the access token (issue 10): the server closes a socket when the token
 * that opened it expires, so the page must hand every refreshed token to its open sockets
 * (`auth {token}`). Access tokens live 15 s in these runs, so a page left open for a few token
 * lifetimes proves it on the real server. A log-out in another tab of the same browser (the same
 * session) closes the socket, and the page does not open it again.
 */
import { expect, type Page, test, type WebSocket } from '@playwright/test';
import { E2E_ACCESS_TOKEN_TTL_SECONDS } from '../playwright.config.js';
import { acceptCookies, logIn, newMember, signUp, translations } from './support.js';

const { en } = translations();

interface SeenSocket {
  sent: string[];
  closed: boolean;
}

/** Every event socket the page opens, with what it sent and whether it closed. */
function watchEventSockets(page: Page): SeenSocket[] {
  const seen: SeenSocket[] = [];
  page.on('websocket', (ws: WebSocket) => {
    if (!ws.url().includes('/api/race-ws')) return;
    const entry: SeenSocket = { sent: [], closed: false };
    seen.push(entry);
    ws.on('framesent', (frame) => entry.sent.push(String(frame.payload)));
    ws.on('close', () => {
      entry.closed = true;
    });
  });
  return seen;
}

const open = (seen: SeenSocket[]) => seen.filter((s) => !s.closed);
const auths = (socket: SeenSocket | undefined) =>
  (socket?.sent ?? []).filter((text) => (JSON.parse(text) as { type: string }).type === 'auth');

test.beforeEach(async ({ context }) => {
  await acceptCookies(context);
});

test('the event socket outlives its access token: the page hands it each refreshed token', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const member = newMember('socket');
  await signUp(request, member);
  const seen = watchEventSockets(page);
  await logIn(page, member.email, member.password);
  await expect.poll(() => open(seen).length).toBe(1);
  const socket = open(seen)[0];
  // Two and a half token lifetimes: the server would have closed a socket left on its first token.
  await page.waitForTimeout(2.5 * E2E_ACCESS_TOKEN_TTL_SECONDS * 1000);
  expect(socket?.closed).toBe(false);
  expect(open(seen)).toHaveLength(1);
  expect(auths(socket).length).toBeGreaterThanOrEqual(2);
});

test('a log-out in another tab closes the event socket of the same session for good', async ({
  context,
  page,
  request,
}) => {
  const member = newMember('logout');
  await signUp(request, member);
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
  // Not opened again (the first tab's page goes to /login once its token cannot be renewed).
  await page.waitForTimeout(3_000);
  expect(open(seen)).toHaveLength(0);
  expect(seen.length).toBe(opened);
});
