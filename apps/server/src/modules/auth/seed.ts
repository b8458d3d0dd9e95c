/**
 * Accounts ensured at start-up, after the migrations. Every account seeded here is remembered by
 * its id (in `app_settings`), never found again by its address: e-mail changes are not verified,
 * so anyone may hold an address later, and an address must never be a way to become admin.
 * - ADMIN_EMAIL + ADMIN_PASSWORD bootstrap the FIRST admin, only while no admin exists: the account
 *   is created, or, if one already has that address, promoted only when ADMIN_PASSWORD is its
 *   password. Once an admin exists the variables change nothing (the log says what was done).
 * - DEMO_ACCOUNTS=true (the quick start): a demo admin and a demo driver with passwords generated
 *   once into DATA_DIR/demo-accounts.json (0600). Their credentials are printed on every start,
 *   straight to stdout and never through the logger (logs must not carry passwords): giving them
 *   to whoever runs the demo is the point.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { findUserById, type UserChanges, type UserRow, updateUser } from '../../kernel/users.repo.js';
import { assignUsername } from '../users/usernames.js';
import { findUserByEmail, insertUser } from './members.repo.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { liveAdminExists, rememberSeededAccount, seededAccountId } from './seed.repo.js';

export const DEMO_ACCOUNTS_FILE = 'demo-accounts.json';
export const DEMO_ADMIN_EMAIL = 'admin@demo.telerace.local';
export const DEMO_DRIVER_EMAIL = 'driver@demo.telerace.local';

/** `app_settings` keys holding the ids of the seeded accounts. */
export const SEEDED_ADMIN_ID_KEY = 'seeded_admin_id';
export const DEMO_ADMIN_ID_KEY = 'demo_admin_id';
export const DEMO_DRIVER_ID_KEY = 'demo_driver_id';

interface Credentials {
  email: string;
  password: string;
}

export interface DemoAccounts {
  admin: Credentials;
  driver: Credentials;
}

/** What seeding did with one account (logged as `result`). */
export type SeedResult = 'created' | 'promoted' | 'adopted' | 'exists' | 'restored' | `skipped: ${string}`;

/** The live account whose id is kept under `key`, if any. */
async function rememberedAccount(db: Db, key: string): Promise<UserRow | undefined> {
  const id = await seededAccountId(db, key);
  return id === undefined ? undefined : findUserById(db, id);
}

async function passwordIs(account: UserRow, password: string): Promise<boolean> {
  return account.passwordHash !== null && verifyPassword(account.passwordHash, password);
}

async function createAccount(
  db: Db,
  account: Credentials & { username: string; isAdmin: boolean },
): Promise<UserRow> {
  return insertUser(db, {
    email: account.email,
    // An operator's admin may be called `admin`; a demo driver may not carry a staff name.
    ...(await assignUsername(db, account.username, { allowReserved: account.isAdmin })),
    passwordHash: await hashPassword(account.password),
    isAdmin: account.isAdmin,
    termsAcceptedAt: new Date(),
  });
}

/**
 * The first admin from ADMIN_EMAIL/ADMIN_PASSWORD. An account already holding the address is
 * promoted only when ADMIN_PASSWORD verifies against it: whoever knows the operator's password is
 * the operator, whoever merely took the address is not. Nothing is ever changed on a live admin.
 */
async function seedFirstAdmin(db: Db, admin: Credentials): Promise<{ result: SeedResult; userId?: number }> {
  const seeded = await rememberedAccount(db, SEEDED_ADMIN_ID_KEY);
  if (seeded?.isAdmin) return { result: 'exists', userId: seeded.id };
  const demoAdmin = await rememberedAccount(db, DEMO_ADMIN_ID_KEY);
  // Another live admin than the demo admin (whose password is public) is a real one.
  if (await liveAdminExists(db, demoAdmin?.id)) return { result: 'skipped: an admin already exists' };
  const holder = await findUserByEmail(db, admin.email);
  if (holder) {
    if (!(await passwordIs(holder, admin.password))) {
      return { result: 'skipped: the address belongs to an account whose password is not ADMIN_PASSWORD' };
    }
    await updateUser(db, holder.id, { isAdmin: true });
    await rememberSeededAccount(db, SEEDED_ADMIN_ID_KEY, holder.id);
    return { result: 'promoted', userId: holder.id };
  }
  const created = await createAccount(db, {
    ...admin,
    username: admin.email.split('@')[0] ?? 'admin',
    isAdmin: true,
  });
  await rememberSeededAccount(db, SEEDED_ADMIN_ID_KEY, created.id);
  return { result: 'created', userId: created.id };
}

/**
 * A demo account, found by its remembered id and set back to the demo file's password and role.
 * Without a remembered id, an account holding the demo address is taken over only when its
 * password is the demo file's (a demo account created before ids were remembered); any other
 * holder is left alone and the demo account is not created.
 */
async function seedDemoAccount(
  db: Db,
  key: string,
  account: Credentials & { username: string; isAdmin: boolean },
): Promise<{ result: SeedResult; userId?: number }> {
  const remembered = await rememberedAccount(db, key);
  let result: SeedResult = 'exists';
  let existing = remembered;
  if (!existing) {
    const holder = await findUserByEmail(db, account.email);
    if (!holder) {
      const created = await createAccount(db, account);
      await rememberSeededAccount(db, key, created.id);
      return { result: 'created', userId: created.id };
    }
    if (!(await passwordIs(holder, account.password))) {
      return { result: 'skipped: the demo address belongs to another account' };
    }
    await rememberSeededAccount(db, key, holder.id);
    existing = holder;
    result = 'adopted';
  }
  const changes: UserChanges = {};
  if (existing.isAdmin !== account.isAdmin) changes.isAdmin = account.isAdmin;
  if (!(await passwordIs(existing, account.password)))
    changes.passwordHash = await hashPassword(account.password);
  if (Object.keys(changes).length > 0) {
    await updateUser(db, existing.id, changes);
    if (result === 'exists') result = 'restored';
  }
  return { result, userId: existing.id };
}

/** The demo credentials: read from DATA_DIR, or generated and written there (0600) the first time. */
export async function loadOrCreateDemoAccounts(dataDir: string): Promise<DemoAccounts> {
  const file = join(dataDir, DEMO_ACCOUNTS_FILE);
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as DemoAccounts;
    if (saved.admin?.password && saved.driver?.password) return saved;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const accounts: DemoAccounts = {
    admin: { email: DEMO_ADMIN_EMAIL, password: randomBytes(12).toString('base64url') },
    driver: { email: DEMO_DRIVER_EMAIL, password: randomBytes(12).toString('base64url') },
  };
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(accounts, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return accounts;
}

export function demoAccountsBanner(accounts: DemoAccounts): string {
  const line = '='.repeat(64);
  return [
    '',
    line,
    ' Telerace demo accounts (DEMO_ACCOUNTS=true; kept in DATA_DIR/demo-accounts.json)',
    `   admin  : ${accounts.admin.email}  /  ${accounts.admin.password}`,
    `   driver : ${accounts.driver.email}  /  ${accounts.driver.password}`,
    line,
    '',
    '',
  ].join('\n');
}

export async function seedAccounts(
  db: Db,
  config: Config,
  log: FastifyBaseLogger,
  print: (text: string) => void = (text) => process.stdout.write(text),
): Promise<void> {
  if (config.admin) {
    const { result, userId } = await seedFirstAdmin(db, config.admin);
    const level = result.startsWith('skipped: the address') ? 'warn' : 'info';
    log[level]({ email: config.admin.email, result, userId }, 'ADMIN_EMAIL: first admin');
  }
  if (config.demoAccounts) {
    const accounts = await loadOrCreateDemoAccounts(config.dataDir);
    for (const [key, credentials, username, isAdmin, msg] of [
      [DEMO_ADMIN_ID_KEY, accounts.admin, 'demo-admin', true, 'DEMO_ACCOUNTS: demo admin'],
      [DEMO_DRIVER_ID_KEY, accounts.driver, 'demo-driver', false, 'DEMO_ACCOUNTS: demo driver'],
    ] as const) {
      const { result, userId } = await seedDemoAccount(db, key, { ...credentials, username, isAdmin });
      log[result.startsWith('skipped') ? 'warn' : 'info']({ email: credentials.email, result, userId }, msg);
    }
    log.warn('DEMO_ACCOUNTS is on: demo admin and driver accounts exist (credentials printed on stdout)');
    print(demoAccountsBanner(accounts));
  }
}
