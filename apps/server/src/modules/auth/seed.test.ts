import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { appSettings, users } from '../../db/schema.js';
import { buildTestApp, createTestEnvironment, startTestApp, type TestApp } from '../../test/app.js';
import { login, newAccount, signup } from '../../test/auth.js';
import { buildAdmin, buildUser } from '../../test/factories.js';
import {
  DEMO_ACCOUNTS_FILE,
  DEMO_ADMIN_EMAIL,
  DEMO_ADMIN_ID_KEY,
  DEMO_DRIVER_EMAIL,
  type DemoAccounts,
  SEEDED_ADMIN_ID_KEY,
  seedAccounts,
} from './seed.js';

type StartedApp = Awaited<ReturnType<typeof startTestApp>>;

async function userByEmail(t: Pick<TestApp, 'app'>, email: string) {
  const [row] = await t.app.database.db.select().from(users).where(eq(users.email, email));
  return row;
}

async function userById(t: Pick<TestApp, 'app'>, id: number) {
  const [row] = await t.app.database.db.select().from(users).where(eq(users.id, id));
  return row;
}

/** The `result` of the seed log lines with this message. */
function seedResults(t: Pick<TestApp, 'logLines'>, msg: string): unknown[] {
  return t
    .logLines()
    .filter((line) => line.msg === msg)
    .map((line) => line.result);
}

const ADMIN_LOG = 'ADMIN_EMAIL: first admin';
const OPERATOR_PASSWORD = 'the first admin password';

const adminsList = (t: Pick<TestApp, 'app'>, accessToken: string) =>
  t.app.inject({ url: '/api/admin/users', headers: { authorization: `Bearer ${accessToken}` } });

describe('ADMIN_EMAIL and ADMIN_PASSWORD', () => {
  let t: StartedApp;
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: 'Boss@Example.com', ADMIN_PASSWORD: OPERATOR_PASSWORD });
  });
  afterAll(() => t.close());

  /** Runs the start-up seeding again with other variables, as a restart would. */
  async function reseed(env: Record<string, string>) {
    const config = loadConfig({ ...t.environment.env, ...env });
    await seedAccounts(t.app.database.db, config, t.app.log);
  }

  it('create the admin at start-up, who can log in, and remember its id', async () => {
    const admin = await userByEmail(t, 'boss@example.com');
    expect(admin).toMatchObject({ username: 'boss', isAdmin: true });
    expect(admin?.termsAcceptedAt).not.toBeNull();
    await login(t.app, { email: 'boss@example.com', password: OPERATOR_PASSWORD });
    const [remembered] = await t.app.database.db
      .select()
      .from(appSettings)
      .where(eq(appSettings.key, SEEDED_ADMIN_ID_KEY));
    expect(remembered?.value).toBe(admin?.id);
    expect(seedResults(t, ADMIN_LOG)).toEqual(['created']);
    expect(t.logText()).not.toContain(OPERATOR_PASSWORD);
  });

  it('on a later start with the admin in place: nothing changes, the log says it exists', async () => {
    await reseed({});
    expect(seedResults(t, ADMIN_LOG).at(-1)).toBe('exists');
  });

  it('never promote an account because of its address once an admin exists', async () => {
    const account = await signup(t.app);
    await reseed({ ADMIN_EMAIL: account.email, ADMIN_PASSWORD: account.password });
    expect((await userByEmail(t, account.email))?.isAdmin).toBe(false);
    expect(seedResults(t, ADMIN_LOG).at(-1)).toBe('exists');
  });

  it('never create a second admin for a new address once an admin exists', async () => {
    await reseed({ ADMIN_EMAIL: 'chief@other.example', ADMIN_PASSWORD: 'another password' });
    expect(await userByEmail(t, 'chief@other.example')).toBeUndefined();
    expect(seedResults(t, ADMIN_LOG).at(-1)).toBe('exists');
    expect(t.logText()).not.toContain('another password');
  });
});

describe('ADMIN_EMAIL when no admin exists', () => {
  let t: StartedApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function reseed(env: Record<string, string>) {
    await seedAccounts(t.app.database.db, loadConfig({ ...t.environment.env, ...env }), t.app.log);
  }

  it('skips when another admin exists, even with the right password of the address holder', async () => {
    const other = await buildAdmin(t.app.database.db);
    const account = await signup(t.app);
    await reseed({ ADMIN_EMAIL: account.email, ADMIN_PASSWORD: account.password });
    await reseed({ ADMIN_EMAIL: 'fresh@other.example', ADMIN_PASSWORD: 'another password' });
    expect((await userByEmail(t, account.email))?.isAdmin).toBe(false);
    expect(await userByEmail(t, 'fresh@other.example')).toBeUndefined();
    expect(seedResults(t, ADMIN_LOG)).toEqual([
      'skipped: an admin already exists',
      'skipped: an admin already exists',
    ]);
    await t.app.database.db.update(users).set({ isAdmin: false }).where(eq(users.id, other.id));
  });

  it('does not promote the account with that address when ADMIN_PASSWORD is not its password', async () => {
    const account = await signup(t.app);
    await reseed({ ADMIN_EMAIL: account.email, ADMIN_PASSWORD: 'not this account password' });
    expect((await userByEmail(t, account.email))?.isAdmin).toBe(false);
    expect(seedResults(t, ADMIN_LOG).at(-1)).toBe(
      'skipped: the address belongs to an account whose password is not ADMIN_PASSWORD',
    );
    // Its own password still works; nothing was changed.
    await login(t.app, account);
  });

  it('promotes the account with that address when ADMIN_PASSWORD is its password', async () => {
    const account = await signup(t.app);
    await reseed({ ADMIN_EMAIL: account.email, ADMIN_PASSWORD: account.password });
    expect((await userByEmail(t, account.email))?.isAdmin).toBe(true);
    expect(seedResults(t, ADMIN_LOG).at(-1)).toBe('promoted');
    await login(t.app, account);
  });

  it('gives the created admin a suffixed username when the local part is taken', async () => {
    await t.app.database.db.update(users).set({ isAdmin: false });
    await signup(t.app, newAccount({ username: 'chief' }));
    await reseed({ ADMIN_EMAIL: 'CHIEF@other.example', ADMIN_PASSWORD: 'another password' });
    const admin = await userByEmail(t, 'chief@other.example');
    expect(admin?.username).toMatch(/^chief#\d{4}$/);
    expect(admin?.isAdmin).toBe(true);
  });
});

describe('issue 10 item 2: a member who takes ADMIN_EMAIL is not made admin by a restart', () => {
  it('the seeded admin changes address, a member takes ADMIN_EMAIL, restart → member 403, operator still admin', async () => {
    const environment = await createTestEnvironment({
      ADMIN_EMAIL: 'operator@example.com',
      ADMIN_PASSWORD: OPERATOR_PASSWORD,
    });
    try {
      const first = await buildTestApp(environment, { persistentDatabase: true });
      const operator = await login(first.app, { email: 'operator@example.com', password: OPERATOR_PASSWORD });
      const [operatorRow] = await first.app.database.db
        .select()
        .from(users)
        .where(eq(users.email, 'operator@example.com'));
      const moved = await first.app.inject({
        method: 'PATCH',
        url: '/api/me/details',
        headers: { authorization: `Bearer ${operator.accessToken}` },
        payload: {
          username: operatorRow?.username,
          email: 'operator-new@example.com',
          currentPassword: OPERATOR_PASSWORD,
        },
      });
      expect(moved.statusCode, moved.body).toBe(200);
      const member = await signup(first.app, newAccount({ email: 'operator@example.com' }));
      await first.app.close();

      const second = await buildTestApp(environment, { persistentDatabase: true });
      try {
        const memberSession = await login(second.app, member);
        expect((await adminsList(second, memberSession.accessToken)).statusCode).toBe(403);
        expect((await userByEmail(second, 'operator@example.com'))?.isAdmin).toBe(false);

        const operatorSession = await login(second.app, {
          email: 'operator-new@example.com',
          password: OPERATOR_PASSWORD,
        });
        expect((await adminsList(second, operatorSession.accessToken)).statusCode).toBe(200);
        expect(seedResults(second, ADMIN_LOG)).toEqual(['exists']);
        expect(second.logText()).not.toContain(OPERATOR_PASSWORD);
      } finally {
        await second.app.close();
      }
    } finally {
      await environment.dispose();
    }
  });
});

describe('DEMO_ACCOUNTS', () => {
  let t: StartedApp;
  beforeAll(async () => {
    t = await startTestApp({ DEMO_ACCOUNTS: 'true' });
  });
  afterAll(() => t.close());

  const savedAccounts = async (): Promise<DemoAccounts> =>
    JSON.parse(await readFile(join(t.config.dataDir, DEMO_ACCOUNTS_FILE), 'utf8')) as DemoAccounts;

  it('creates a demo admin and driver with passwords kept in DATA_DIR (0600), reused and printed, never logged', async () => {
    const file = join(t.config.dataDir, DEMO_ACCOUNTS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = await savedAccounts();
    expect(saved.admin.email).toBe(DEMO_ADMIN_EMAIL);
    expect(saved.driver.email).toBe(DEMO_DRIVER_EMAIL);
    expect((await userByEmail(t, DEMO_ADMIN_EMAIL))?.isAdmin).toBe(true);
    expect((await userByEmail(t, DEMO_DRIVER_EMAIL))?.isAdmin).toBe(false);
    await login(t.app, saved.admin);
    await login(t.app, saved.driver);
    expect(t.logText()).not.toContain(saved.admin.password);
    expect(t.logText()).not.toContain(saved.driver.password);

    // A second start: same passwords, same accounts, printed again.
    let printed = '';
    await seedAccounts(t.app.database.db, t.config, t.app.log, (text) => {
      printed += text;
    });
    expect(await savedAccounts()).toEqual(saved);
    for (const value of [
      saved.admin.email,
      saved.admin.password,
      saved.driver.email,
      saved.driver.password,
    ]) {
      expect(printed).toContain(value);
    }
    const demo = await t.app.database.db.select().from(users);
    expect(demo.filter((u) => u.email?.endsWith('@demo.telerace.local'))).toHaveLength(2);
  });

  it('the demo admin is remembered by id: a member who takes its address is not promoted', async () => {
    const saved = await savedAccounts();
    const demoAdmin = await userByEmail(t, DEMO_ADMIN_EMAIL);
    if (!demoAdmin) throw new Error('no demo admin');
    await t.app.database.db
      .update(users)
      .set({ email: 'renamed-demo-admin@example.com' })
      .where(eq(users.id, demoAdmin.id));
    const member = await signup(t.app, newAccount({ email: DEMO_ADMIN_EMAIL }));
    await seedAccounts(t.app.database.db, t.config, t.app.log, () => {});
    const taker = await userByEmail(t, DEMO_ADMIN_EMAIL);
    expect(taker?.isAdmin).toBe(false);
    // Not reset to the demo password either: the member's own still works.
    await login(t.app, member);
    expect((await userById(t, demoAdmin.id))?.isAdmin).toBe(true);
    await login(t.app, { email: 'renamed-demo-admin@example.com', password: saved.admin.password });
  });
});

describe('DEMO_ACCOUNTS on a database where a member already holds the demo admin address', () => {
  it('does not promote the member nor touch their password', async () => {
    const t = await startTestApp();
    try {
      const member = await signup(t.app, newAccount({ email: DEMO_ADMIN_EMAIL }));
      await seedAccounts(
        t.app.database.db,
        loadConfig({ ...t.environment.env, DEMO_ACCOUNTS: 'true' }),
        t.app.log,
        () => {},
      );
      expect((await userByEmail(t, DEMO_ADMIN_EMAIL))?.isAdmin).toBe(false);
      await login(t.app, member);
      const [remembered] = await t.app.database.db
        .select()
        .from(appSettings)
        .where(eq(appSettings.key, DEMO_ADMIN_ID_KEY));
      expect(remembered).toBeUndefined();
      expect(
        t
          .logLines()
          .some((l) => l.msg === 'DEMO_ACCOUNTS: demo admin' && String(l.result).startsWith('skipped')),
      ).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('adopts a demo admin created before ids were remembered (its password is the demo file’s)', async () => {
    const t = await startTestApp({ DEMO_ACCOUNTS: 'true' });
    try {
      const admin = await userByEmail(t, DEMO_ADMIN_EMAIL);
      await t.app.database.db.delete(appSettings).where(eq(appSettings.key, DEMO_ADMIN_ID_KEY));
      // Another admin exists too: the demo admin is not "the first admin" of ADMIN_EMAIL.
      await buildAdmin(t.app.database.db);
      await buildUser(t.app.database.db);
      await seedAccounts(t.app.database.db, t.config, t.app.log, () => {});
      const [remembered] = await t.app.database.db
        .select()
        .from(appSettings)
        .where(eq(appSettings.key, DEMO_ADMIN_ID_KEY));
      expect(remembered?.value).toBe(admin?.id);
      expect((await userByEmail(t, DEMO_ADMIN_EMAIL))?.isAdmin).toBe(true);
    } finally {
      await t.close();
    }
  });
});
