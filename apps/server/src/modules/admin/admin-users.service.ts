/**
 * Admin actions on members. Each one changes the member and writes its audit record in the same
 * transaction; events that end sessions are emitted only after the commit.
 */
import { randomUUID } from 'node:crypto';
import { type AdminUser, ERROR_KEYS, type TicketsResponse } from '@telerace/protocol';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../events.js';
import { HttpError } from '../../http/errors.js';
import { deleteAccount, deletedUsername } from '../account/delete-account.js';
import { revokeUserSessions } from '../auth/sessions.repo.js';
import { addLedgerEntry, ticketsForUsers } from '../tickets/tickets.service.js';
import { presentUser } from '../users/user.presenter.js';
import type { UserRow } from '../users/users.repo.js';
import { listLogins, listUsers, lockLiveUser, type Page, setUserFlags } from './admin-users.repo.js';
import { recordAudit } from './audit.repo.js';

export interface Actor {
  id: number;
  username: string;
}

const notFound = (): HttpError => new HttpError(404, 'User not found', ERROR_KEYS.userNotFound);
const selfError = (): HttpError =>
  new HttpError(400, 'You cannot do this to your own account.', ERROR_KEYS.cannotActOnSelf);

function presentAdminUser(row: UserRow, tickets: TicketsResponse | undefined): AdminUser {
  return {
    ...presentUser(row),
    tickets: tickets?.tickets ?? 0,
    ticket_adjustment: tickets?.breakdown.adjustments ?? 0,
  };
}

async function adminUser(db: Db, row: UserRow): Promise<AdminUser> {
  return presentAdminUser(row, (await ticketsForUsers(db, [row.id])).get(row.id));
}

export async function listAdminUsers(
  db: Db,
  page: Page,
): Promise<{ users: AdminUser[]; totalCount: number }> {
  const { rows, totalCount } = await listUsers(db, page);
  const tickets = await ticketsForUsers(
    db,
    rows.map((row) => row.id),
  );
  return { users: rows.map((row) => presentAdminUser(row, tickets.get(row.id))), totalCount };
}

export async function listLoginHistory(db: Db, page: Page) {
  const { rows, totalCount } = await listLogins(db, page);
  return {
    logins: rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      username: row.username,
      ip: row.ip,
    })),
    totalCount,
  };
}

/** Runs `action` on a locked live member other than the actor, in one transaction. */
async function onOtherMember<T>(
  db: Db,
  actor: Actor,
  targetId: number,
  action: (tx: Db, target: UserRow) => Promise<T>,
): Promise<T> {
  if (targetId === actor.id) throw selfError();
  return db.transaction(async (tx) => {
    const target = await lockLiveUser(tx, targetId);
    if (!target) throw notFound();
    return action(tx, target);
  });
}

/** Bans (ending every session at once) or unbans a member. */
export async function setBanned(
  db: Db,
  events: EventBus,
  actor: Actor,
  targetId: number,
  ban: boolean,
): Promise<AdminUser> {
  const row = await onOtherMember(db, actor, targetId, async (tx, target) => {
    const updated = await setUserFlags(tx, target.id, { isBanned: ban });
    if (ban) await revokeUserSessions(tx, target.id);
    await recordAudit(tx, {
      actor,
      action: ban ? 'user.ban' : 'user.unban',
      targetType: 'user',
      targetId: target.id,
      before: { is_banned: target.isBanned },
      after: { is_banned: updated.isBanned },
    });
    return updated;
  });
  events.emit('user.changed', { userId: row.id, username: row.username });
  if (ban) events.emit('user.sessions-revoked', { userId: row.id, reason: 'banned' });
  return adminUser(db, row);
}

/**
 * Grants or revokes the admin role; nobody removes their own. Open sockets hear of it after the
 * commit (`user.role-changed`): a demoted admin's control socket loses its config rights.
 */
export async function setAdmin(
  db: Db,
  events: EventBus,
  actor: Actor,
  targetId: number,
  makeAdmin: boolean,
): Promise<AdminUser> {
  if (targetId === actor.id && !makeAdmin) {
    throw new HttpError(400, 'You cannot remove your own admin role.', ERROR_KEYS.cannotRemoveOwnAdmin);
  }
  const row = await db.transaction(async (tx) => {
    const target = await lockLiveUser(tx, targetId);
    if (!target) throw notFound();
    const updated = await setUserFlags(tx, target.id, { isAdmin: makeAdmin });
    await recordAudit(tx, {
      actor,
      action: makeAdmin ? 'user.grant-admin' : 'user.revoke-admin',
      targetType: 'user',
      targetId: target.id,
      before: { is_admin: target.isAdmin },
      after: { is_admin: updated.isAdmin },
    });
    return updated;
  });
  events.emit('user.changed', { userId: row.id, username: row.username });
  events.emit('user.role-changed', { userId: row.id, isAdmin: row.isAdmin });
  return adminUser(db, row);
}

/**
 * Adds a ticket adjustment (positive or negative). `requestId` makes it idempotent: a repeated
 * request adds nothing and writes no second audit record.
 */
export async function adjustTickets(
  db: Db,
  actor: Actor,
  targetId: number,
  amount: number,
  requestId: string | undefined,
): Promise<AdminUser> {
  return db.transaction(async (tx) => {
    const target = await lockLiveUser(tx, targetId);
    if (!target) throw notFound();
    const before = (await ticketsForUsers(tx, [target.id])).get(target.id);
    const added = await addLedgerEntry(tx, {
      userId: target.id,
      kind: 'adjustment',
      amount,
      sourceId: `adjustment:${requestId ?? randomUUID()}`,
    });
    if (!added) return presentAdminUser(target, before);
    const after = (await ticketsForUsers(tx, [target.id])).get(target.id);
    await recordAudit(tx, {
      actor,
      action: 'user.adjust-tickets',
      targetType: 'user',
      targetId: target.id,
      before: { tickets: before?.tickets ?? 0, ticket_adjustment: before?.breakdown.adjustments ?? 0 },
      after: {
        tickets: after?.tickets ?? 0,
        ticket_adjustment: after?.breakdown.adjustments ?? 0,
        amount,
        ...(requestId ? { request_id: requestId } : {}),
      },
    });
    return presentAdminUser(target, after);
  });
}

/** Deletes another member's account (one's own goes through DELETE /me). */
export async function deleteMember(db: Db, events: EventBus, actor: Actor, targetId: number): Promise<void> {
  if (targetId === actor.id) throw selfError();
  const deleted = await deleteAccount(db, events, targetId, {
    inTransaction: (tx, before) =>
      recordAudit(tx, {
        actor,
        action: 'user.delete',
        targetType: 'user',
        targetId,
        // No e-mail or other personal data: this record can never be erased.
        before: { username: before.username, is_admin: before.isAdmin, is_banned: before.isBanned },
        after: { username: deletedUsername(targetId), deleted: true },
      }),
  });
  if (!deleted) throw notFound();
}
