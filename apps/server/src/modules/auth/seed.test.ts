import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { users } from '../../db/schema.js';
import { startTestApp } from '../../test/app.js';
import { login, newAccount, signup } from '../../test/auth.js';
import {
  DEMO_ACCOUNTS_FILE,
  DEMO_ADMIN_EMAIL,
  DEMO_DRIVER_EMAIL,
  type DemoAccounts,
  seedAccounts,
} from './seed.js';

type TestApp = Awaited<ReturnType<typeof startTestApp>>;

async function userByEmail(t: TestApp, email: string) {
  const [row] = await t.app.database.db.select().from(users).where(eq(users.email, email));
  return row;
}

describe('ADMIN_EMAIL and ADMIN_PASSWORD', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: 'Boss@Example.com', ADMIN_PASSWORD: 'the first admin password' });
  });
  afterAll(() => t.close());

  it('create the admin at start-up, who can log in', async () => {
    const admin = await userByEmail(t, 'boss@example.com');
    expect(admin).toMatchObject({ username: 'boss', isAdmin: true });
    expect(admin?.termsAcceptedAt).not.toBeNull();
    await login(t.app, { email: 'boss@example.com', password: 'the first admin password' });
    expect(t.logText()).not.toContain('the first admin password');
  });

  it('promote an existing account without touching its password', async () => {
    const account = await signup(t.app);
    const config = loadConfig({
      ...t.environment.env,
      ADMIN_EMAIL: account.email,
      ADMIN_PASSWORD: 'not used at all',
    });
    await seedAccounts(t.app.database.db, config, t.app.log);
    expect((await userByEmail(t, account.email))?.isAdmin).toBe(true);
    await login(t.app, account);
  });

  it('give a suffixed username when the local part is taken', async () => {
    const taken = await signup(t.app, newAccount({ username: 'chief' }));
    const config = loadConfig({
      ...t.environment.env,
      ADMIN_EMAIL: 'CHIEF@other.example',
      ADMIN_PASSWORD: 'another password',
    });
    await seedAccounts(t.app.database.db, config, t.app.log);
    const admin = await userByEmail(t, 'chief@other.example');
    expect(admin?.username).toMatch(/^chief#\d{4}$/);
    expect((await userByEmail(t, taken.email))?.isAdmin).toBe(false);
  });
});

describe('DEMO_ACCOUNTS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DEMO_ACCOUNTS: 'true' });
  });
  afterAll(() => t.close());

  it('creates a demo admin and driver with passwords kept in DATA_DIR (0600), reused and printed, never logged', async () => {
    const file = join(t.config.dataDir, DEMO_ACCOUNTS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const { readFile } = await import('node:fs/promises');
    const saved = JSON.parse(await readFile(file, 'utf8')) as DemoAccounts;
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
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(saved);
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
});
