/**
 * Usernames that impersonate, through real HTTP: sign-up and the details form normalise the name
 * (NFKC), refuse invisible and bidi characters and reserved names with a 400 the forms translate,
 * and refuse a look-alike of someone's name with the spec's 409.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { newAccount, type TestAccount } from '../../test/auth.js';
import { authHeader, buildAdmin, buildUser, TEST_PASSWORD } from '../../test/factories.js';
import { listen } from '../../test/sockets.js';
import { usernameSkeleton } from './usernames.js';

let t: Awaited<ReturnType<typeof startTestApp>>;
let base: string;
beforeAll(async () => {
  // One proxy hop: each sign-up comes "from" its own address, away from the per-IP limit.
  t = await startTestApp({ TRUST_PROXY: '1' });
  base = `http://${await listen(t.app)}`;
});
afterAll(() => t.close());

let address = 0;
async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  address += 1;
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${address}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const signup = (account: TestAccount) => call('POST', '/signup', account);

async function storedUser(email: string) {
  const [row] = await t.app.database.db.select().from(users).where(eq(users.email, email));
  return row;
}

const IN_USE = { error: 'Email or username already in use', errorKey: ERROR_KEYS.emailOrUsernameInUse };
const RESERVED = { error: 'This username is reserved.', errorKey: ERROR_KEYS.usernameReserved };
const CHARACTERS = {
  error: 'Usernames cannot contain invisible, control or formatting characters.',
  errorKey: ERROR_KEYS.usernameInvalidCharacters,
};

describe('sign-up', () => {
  it('stores the NFKC form with its skeleton', async () => {
    const account = newAccount({ username: 'Ｆｕｌｌｗｉｄｔｈ Ｆｒｅｄ' });
    expect((await signup(account)).status).toBe(201);
    expect(await storedUser(account.email)).toMatchObject({
      username: 'Fullwidth Fred',
      usernameSkeleton: usernameSkeleton('Fullwidth Fred'),
    });
  });

  it.each([
    ['Аdmin', RESERVED],
    ['Ａdmin', RESERVED],
    ['Deleted driver', RESERVED],
    ['Telerace Support', RESERVED],
    ['ad\u200Dmin', CHARACTERS],
    ['\u202Enimda', CHARACTERS],
    ['bob\uE000', CHARACTERS],
  ])('refuses %j with 400 %o', async (username, answer) => {
    const account = newAccount({ username });
    expect(await signup(account)).toEqual({ status: 400, body: answer });
    expect(await storedUser(account.email)).toBeUndefined();
  });

  it('refuses a look-alike of a taken name with the spec 409, and takes legit accented and CJK names', async () => {
    expect((await signup(newAccount({ username: 'Nightrider' }))).status).toBe(201);
    for (const lookAlike of ['nightrider', 'NIGHTRIDER', 'Nіghtrіder', 'N1ghtrider', 'Ｎightrider']) {
      expect(await signup(newAccount({ username: lookAlike }))).toEqual({ status: 409, body: IN_USE });
    }
    for (const legit of ['Zoë Nightrider', 'José', 'Jose', '山田太郎']) {
      const account = newAccount({ username: legit });
      expect((await signup(account)).status, legit).toBe(201);
      expect((await storedUser(account.email))?.username).toBe(legit);
    }
  });

  it('a lone surrogate in the JSON body is refused, not stored', async () => {
    const account = newAccount({ username: 'lone\uD800' });
    const response = await fetch(`${base}/api/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.250' },
      // JSON.stringify escapes the lone surrogate as \ud800: what an attacker's client sends.
      body: JSON.stringify(account),
    });
    // Refused at the boundary (http/validator.ts: text PostgreSQL cannot store), naming the field.
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: expect.stringContaining('username'),
      errorKey: ERROR_KEYS.validation,
    });
  });
});

describe('changing details', () => {
  const details = async (user: { id: number }, username: string) =>
    call(
      'PATCH',
      '/me/details',
      { username, email: null, currentPassword: TEST_PASSWORD },
      await authHeader(t.app, user),
    );

  it('refuses a look-alike of another name (409), reserved names (400) and bidi controls (400)', async () => {
    await buildUser(t.app.database.db, { username: 'Tornado' });
    const member = await buildUser(t.app.database.db);
    for (const lookAlike of ['T0rnad0', 'TORNADO', 'Тоrnado']) {
      expect(await details(member, lookAlike)).toEqual({ status: 409, body: IN_USE });
    }
    expect(await details(member, 'Moderator')).toEqual({ status: 400, body: RESERVED });
    expect(await details(member, 'x\u2067y')).toEqual({ status: 400, body: CHARACTERS });
    expect((await storedUser(member.email ?? ''))?.username).toBe(member.username);
  });

  it('stores the new name normalised with its skeleton; the member may take a look-alike of their own name', async () => {
    const member = await buildUser(t.app.database.db, { username: 'Pit Stop' });
    const saved = await details(member, 'Ｐｉｔ　Ｓｔ0ｐ');
    expect(saved.status).toBe(200);
    expect(saved.body.user).toMatchObject({ username: 'Pit St0p' });
    expect(await storedUser(member.email ?? '')).toMatchObject({
      username: 'Pit St0p',
      usernameSkeleton: usernameSkeleton('Pit Stop'),
    });
  });

  it('an admin may take a reserved name', async () => {
    const admin = await buildAdmin(t.app.database.db);
    const saved = await details(admin, 'Support');
    expect(saved.status).toBe(200);
    expect(saved.body.user).toMatchObject({ username: 'Support' });
  });
});
