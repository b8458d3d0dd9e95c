/**
 * Accounts ensured at start-up, after the migrations:
 * - ADMIN_EMAIL + ADMIN_PASSWORD: that account is created as an admin, or promoted if it exists
 *   (an existing password is left alone: the variable only bootstraps the first admin).
 * - DEMO_ACCOUNTS=true (the quick start): a demo admin and a demo driver with passwords generated
 *   once into DATA_DIR/demo-accounts.json (0600). Their credentials are printed on every start,
 *   straight to stdout and never through the logger (logs must not carry passwords): giving them
 *   to whoever runs the demo is the point.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';
import { assignUsername, baseUsername } from '../users/usernames.js';
import { findUserByEmail } from '../users/users.repo.js';
import { hashPassword, verifyPassword } from './passwords.js';

export const DEMO_ACCOUNTS_FILE = 'demo-accounts.json';
export const DEMO_ADMIN_EMAIL = 'admin@demo.telerace.local';
export const DEMO_DRIVER_EMAIL = 'driver@demo.telerace.local';

interface Credentials {
  email: string;
  password: string;
}

export interface DemoAccounts {
  admin: Credentials;
  driver: Credentials;
}

/** Creates the account (admin or not) or, if it exists, makes sure of the admin flag. */
async function ensureAccount(
  db: Db,
  account: Credentials & { username: string; isAdmin: boolean; resetPassword: boolean },
): Promise<'created' | 'promoted' | 'unchanged'> {
  const existing = await findUserByEmail(db, account.email);
  if (!existing) {
    await db.insert(users).values({
      email: account.email,
      username: await assignUsername(db, baseUsername(account.username)),
      passwordHash: await hashPassword(account.password),
      isAdmin: account.isAdmin,
      termsAcceptedAt: new Date(),
    });
    return 'created';
  }
  const changes: Partial<typeof users.$inferInsert> = {};
  if (account.isAdmin && !existing.isAdmin) changes.isAdmin = true;
  if (
    account.resetPassword &&
    (existing.passwordHash === null || !(await verifyPassword(existing.passwordHash, account.password)))
  ) {
    changes.passwordHash = await hashPassword(account.password);
  }
  if (Object.keys(changes).length === 0) return 'unchanged';
  await db.update(users).set(changes).where(eq(users.id, existing.id));
  return changes.isAdmin ? 'promoted' : 'unchanged';
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
    const result = await ensureAccount(db, {
      ...config.admin,
      username: config.admin.email.split('@')[0] ?? 'admin',
      isAdmin: true,
      resetPassword: false,
    });
    log.info({ email: config.admin.email, result }, 'ADMIN_EMAIL account ensured');
  }
  if (config.demoAccounts) {
    const accounts = await loadOrCreateDemoAccounts(config.dataDir);
    await ensureAccount(db, {
      ...accounts.admin,
      username: 'demo-admin',
      isAdmin: true,
      resetPassword: true,
    });
    await ensureAccount(db, {
      ...accounts.driver,
      username: 'demo-driver',
      isAdmin: false,
      resetPassword: true,
    });
    log.warn('DEMO_ACCOUNTS is on: demo admin and driver accounts exist (credentials printed on stdout)');
    print(demoAccountsBanner(accounts));
  }
}
