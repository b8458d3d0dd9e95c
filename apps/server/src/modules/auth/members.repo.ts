/** Members' rows as only the auth module writes and finds them: sign-up, sign-in by e-mail, terms, reset. */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';
import type { UserRow } from '../../kernel/users.repo.js';

type NewUser = Pick<
  typeof users.$inferInsert,
  'email' | 'username' | 'usernameSkeleton' | 'passwordHash' | 'isAdmin' | 'termsAcceptedAt'
>;

export async function insertUser(db: Db, values: NewUser): Promise<UserRow> {
  const [row] = await db.insert(users).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

/** A live member by e-mail, case-insensitively. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(sql`lower(${users.email}) = lower(${email})`, isNull(users.deletedAt)));
  return row;
}

/** Whether an e-mail, a name or a look-alike of it is already used (sign-up). */
export async function signupClash(
  db: Db,
  values: { email: string; username: string; usernameSkeleton: string },
): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(
      sql`lower(${users.email}) = lower(${values.email}) or lower(${users.username}) = lower(${values.username}) or ${users.usernameSkeleton} = ${values.usernameSkeleton}`,
    )
    .limit(1);
  return rows.length > 0;
}

/** Records the terms' acceptance once (the first time stays). */
export async function acceptTerms(db: Db, id: number, now: Date): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ termsAcceptedAt: sql`coalesce(${users.termsAcceptedAt}, ${now})` })
    .where(eq(users.id, id))
    .returning();
  return row;
}

/** Sets a live member's password; undefined when there is no live member with that id. */
export async function setLivePassword(
  tx: Db,
  id: number,
  changes: { passwordHash: string; tokensValidAfter: Date },
): Promise<UserRow | undefined> {
  const [row] = await tx
    .update(users)
    .set(changes)
    .where(and(eq(users.id, id), isNull(users.deletedAt)))
    .returning();
  return row;
}
