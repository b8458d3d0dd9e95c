/** Queries of the admin Users and Login History tabs. */
import { asc, count, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { loginHistory, users } from '../../db/schema.js';
import type { UserRow } from '../../kernel/users.repo.js';

export interface Page {
  page: number;
  limit: number;
}

const offsetOf = ({ page, limit }: Page): number => (page - 1) * limit;

/** Live members, by id. */
export async function listUsers(db: Db, page: Page): Promise<{ rows: UserRow[]; totalCount: number }> {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(users)
      .where(isNull(users.deletedAt))
      .orderBy(asc(users.id))
      .limit(page.limit)
      .offset(offsetOf(page)),
    db.select({ n: count() }).from(users).where(isNull(users.deletedAt)),
  ]);
  return { rows, totalCount: total?.n ?? 0 };
}

export interface LoginRow {
  id: number;
  createdAt: Date;
  username: string;
  ip: string;
}

/** Successful logins, newest first. */
export async function listLogins(db: Db, page: Page): Promise<{ rows: LoginRow[]; totalCount: number }> {
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: loginHistory.id,
        createdAt: loginHistory.createdAt,
        username: users.username,
        ip: loginHistory.ip,
      })
      .from(loginHistory)
      .innerJoin(users, eq(users.id, loginHistory.userId))
      .orderBy(desc(loginHistory.createdAt), desc(loginHistory.id))
      .limit(page.limit)
      .offset(offsetOf(page)),
    db.select({ n: count() }).from(loginHistory),
  ]);
  return { rows, totalCount: total?.n ?? 0 };
}
