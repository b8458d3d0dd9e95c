/**
 * TRUST_PROXY through real HTTP: the client address that the per-IP limits and the login history
 * use. Behind one proxy the address is the entry that proxy added (the rightmost), never one the
 * client wrote itself; without TRUST_PROXY, X-Forwarded-For is ignored.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { loginHistory, users } from '../db/schema.js';
import { startTestApp } from '../test/app.js';
import { newAccount } from '../test/auth.js';
import { listen } from '../test/sockets.js';

type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/** The proxy's view of the client (what nginx appends); the client never chooses it. */
const CLIENT = '198.51.100.7';
const SIGNUPS_PER_HOUR = 10;

const randomAddress = () => [...randomBytes(4)].map((byte) => String(byte)).join('.');

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(env: Record<string, string>): Promise<string> {
  app = await startTestApp(env);
  return `http://${await listen(app.app)}`;
}

function post(base: string, path: string, body: unknown, forwardedFor: string) {
  return fetch(`${base}/api${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify(body),
  });
}

/** Sign-ups, each with a new forged leftmost X-Forwarded-For; the statuses in order. */
async function signupStatuses(base: string, count: number, forwarded: (forged: string) => string) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await post(base, '/signup', newAccount(), forwarded(randomAddress()));
    statuses.push(response.status);
  }
  return statuses;
}

async function loginHistoryIps(t: TestApp, email: string): Promise<string[]> {
  const db = t.app.database.db;
  const [user] = await db.select().from(users).where(eq(users.email, email));
  const rows = await db
    .select()
    .from(loginHistory)
    .where(eq(loginHistory.userId, user?.id ?? 0))
    .orderBy(loginHistory.id);
  return rows.map((row) => row.ip);
}

/** The address the sign-up comes from: it signs the member in, so the history's first row (issue 41). */
const SIGNUP_ADDRESS = '192.0.2.50';

async function signupAndLogin(base: string, forwardedFor: string) {
  const account = newAccount();
  // From another address than CLIENT, whose sign-ups may already be used up.
  expect((await post(base, '/signup', account, SIGNUP_ADDRESS)).status).toBe(201);
  const response = await post(
    base,
    '/login',
    { email: account.email, password: account.password },
    forwardedFor,
  );
  expect(response.status).toBe(200);
  return account;
}

const expectedLimit = [...Array<number>(SIGNUPS_PER_HOUR).fill(201), 429, 429];

describe('TRUST_PROXY=1 (one nginx in front)', () => {
  it('a client rotating a forged leftmost X-Forwarded-For still gets 10 sign-ups an hour', async () => {
    const base = await start({ TRUST_PROXY: '1' });
    expect(await signupStatuses(base, 12, (forged) => `${forged}, ${CLIENT}`)).toEqual(expectedLimit);
  });

  it('records the address the proxy saw in the login history, not the forged one', async () => {
    const base = await start({ TRUST_PROXY: '1' });
    const account = await signupAndLogin(base, `203.0.113.66, ${CLIENT}`);
    expect(await loginHistoryIps(app as TestApp, account.email)).toEqual([SIGNUP_ADDRESS, CLIENT]);
  });
});

describe('TRUST_PROXY=<proxy address>', () => {
  it('only the listed proxy may speak for the client', async () => {
    const base = await start({ TRUST_PROXY: '127.0.0.1' });
    expect(await signupStatuses(base, 12, (forged) => `${forged}, ${CLIENT}`)).toEqual(expectedLimit);
    const account = await signupAndLogin(base, `203.0.113.66, ${CLIENT}`);
    expect(await loginHistoryIps(app as TestApp, account.email)).toEqual([SIGNUP_ADDRESS, CLIENT]);
  });
});

describe('TRUST_PROXY unset', () => {
  it('ignores X-Forwarded-For for the sign-up limit', async () => {
    const base = await start({});
    expect(await signupStatuses(base, 12, (forged) => forged)).toEqual(expectedLimit);
  });

  it('records the connection address in the login history', async () => {
    const base = await start({});
    const account = await signupAndLogin(base, `203.0.113.66, ${CLIENT}`);
    // The sign-up's log-in and this one, both from the connection's address.
    expect(await loginHistoryIps(app as TestApp, account.email)).toEqual(['127.0.0.1', '127.0.0.1']);
  });
});
