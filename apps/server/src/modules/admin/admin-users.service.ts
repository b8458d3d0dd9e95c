/**
 * Admin actions on members. Each one changes the member and writes its audit record in the same
 * transaction; events that end sessions are emitted only after the commit.
 */
import { randomUUID } from 'node:crypto';
import { type AdminUser, ERROR_KEYS } from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { DomainError } from '../../domain-error.js';
import type { EventBus } from '../../events.js';
import { type AuditAction, recordAudit } from '../../kernel/audit.repo.js';
import { lockLiveUser, type UserRow, updateUser } from '../../kernel/users.repo.js';
import { type AccountService, deletedUsername } from '../account/account.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { TicketsService } from '../tickets/tickets.service.js';
import { presentAdminUser } from './admin-user.presenter.js';
import { listLogins, listUsers, type Page } from './admin-users.repo.js';

export interface Actor {
  id: number;
  username: string;
}

const notFound = (): DomainError => new DomainError('not_found', 'User not found', ERROR_KEYS.userNotFound);
const selfError = (): DomainError =>
  new DomainError('invalid', 'You cannot do this to your own account.', ERROR_KEYS.cannotActOnSelf);

export interface AdminUsersServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  log: FastifyBaseLogger;
  tickets: TicketsService;
  /** Deletion is the account module's (the member's own DELETE /me does the same). */
  account: AccountService;
  /** A ban ends the member's sessions in its own transaction; sessions are the auth module's. */
  sessions: Pick<AuthService, 'revokeSessionsIn'>;
}

export class AdminUsersService {
  readonly #db: Db;
  readonly #events: EventBus;
  readonly #tickets: TicketsService;
  readonly #account: AccountService;
  readonly #sessions: Pick<AuthService, 'revokeSessionsIn'>;

  constructor(deps: AdminUsersServiceDeps) {
    this.#db = deps.db;
    this.#events = deps.bus;
    this.#tickets = deps.tickets;
    this.#account = deps.account;
    this.#sessions = deps.sessions;
  }

  async #adminUser(row: UserRow): Promise<AdminUser> {
    return presentAdminUser(row, await this.#tickets.forUser(row.id));
  }

  async list(page: Page): Promise<{ users: AdminUser[]; totalCount: number }> {
    const { rows, totalCount } = await listUsers(this.#db, page);
    const tickets = await this.#tickets.forUsers(rows.map((row) => row.id));
    return { users: rows.map((row) => presentAdminUser(row, tickets.get(row.id))), totalCount };
  }

  async loginHistory(page: Page) {
    const { rows, totalCount } = await listLogins(this.#db, page);
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

  /** Runs `action` on a locked live member, in one transaction. */
  async #onMember<T>(targetId: number, action: (tx: Db, target: UserRow) => Promise<T>): Promise<T> {
    return this.#db.transaction(async (tx) => {
      const target = await lockLiveUser(tx, targetId);
      if (!target) throw notFound();
      return action(tx, target);
    });
  }

  /** Sets one of the member's flags with its audit record (`is_banned`/`is_admin` before and after). */
  async #setFlag(
    tx: Db,
    actor: Actor,
    target: UserRow,
    change: { flag: 'isBanned' | 'isAdmin'; value: boolean; action: AuditAction },
  ): Promise<UserRow> {
    const { flag, value, action } = change;
    const updated = await updateUser(tx, target.id, { [flag]: value });
    const column = flag === 'isBanned' ? 'is_banned' : 'is_admin';
    await recordAudit(tx, {
      actor,
      action,
      targetType: 'user',
      targetId: target.id,
      before: { [column]: target[flag] },
      after: { [column]: updated[flag] },
    });
    return updated;
  }

  /** Bans (ending every session at once) or unbans a member; nobody bans themselves. */
  async setBanned(actor: Actor, targetId: number, ban: boolean): Promise<AdminUser> {
    if (targetId === actor.id) throw selfError();
    const row = await this.#onMember(targetId, async (tx, target) => {
      if (ban) await this.#sessions.revokeSessionsIn(tx, target.id);
      return this.#setFlag(tx, actor, target, {
        flag: 'isBanned',
        value: ban,
        action: ban ? 'user.ban' : 'user.unban',
      });
    });
    this.#events.emit('user.changed', { userId: row.id, username: row.username });
    if (ban) this.#events.emit('user.sessions-revoked', { userId: row.id, reason: 'banned' });
    return this.#adminUser(row);
  }

  /**
   * Grants or revokes the admin role; nobody removes their own. Open sockets hear of it after the
   * commit (`user.role-changed`): a demoted admin's control socket loses its config rights.
   */
  async setAdmin(actor: Actor, targetId: number, makeAdmin: boolean): Promise<AdminUser> {
    if (targetId === actor.id && !makeAdmin) {
      throw new DomainError(
        'invalid',
        'You cannot remove your own admin role.',
        ERROR_KEYS.cannotRemoveOwnAdmin,
      );
    }
    const row = await this.#onMember(targetId, (tx, target) =>
      this.#setFlag(tx, actor, target, {
        flag: 'isAdmin',
        value: makeAdmin,
        action: makeAdmin ? 'user.grant-admin' : 'user.revoke-admin',
      }),
    );
    this.#events.emit('user.changed', { userId: row.id, username: row.username });
    this.#events.emit('user.role-changed', { userId: row.id, isAdmin: row.isAdmin });
    return this.#adminUser(row);
  }

  /**
   * Adds a ticket adjustment (positive or negative). `requestId` makes it idempotent: a repeated
   * request adds nothing and writes no second audit record.
   */
  async adjustTickets(
    actor: Actor,
    targetId: number,
    amount: number,
    requestId: string | undefined,
  ): Promise<AdminUser> {
    const adjusted = await this.#onMember(targetId, async (tx, target) => {
      const before = await this.#tickets.forUser(target.id, tx);
      const added = await this.#tickets.add(
        {
          userId: target.id,
          kind: 'adjustment',
          amount,
          sourceId: `adjustment:${requestId ?? randomUUID()}`,
        },
        tx,
      );
      if (!added) return { user: presentAdminUser(target, before), changed: false };
      const after = await this.#tickets.forUser(target.id, tx);
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
      return { user: presentAdminUser(target, after), changed: true };
    });
    const { user, changed } = adjusted;
    if (changed) this.#events.emit('tickets.adjusted', { userId: user.id, amount, tickets: user.tickets });
    return user;
  }

  /** Deletes another member's account (one's own goes through DELETE /me). */
  async deleteMember(actor: Actor, targetId: number): Promise<void> {
    if (targetId === actor.id) throw selfError();
    const deleted = await this.#account.deleteAccount(targetId, {
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
}
