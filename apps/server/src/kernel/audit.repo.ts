/**
 * The audit log of admin actions (shared kernel: every module with an admin action writes it).
 * Always written with the transaction that makes the change, so a change is never without its
 * record nor a record without its change. The table refuses
 * UPDATE and DELETE (trigger in drizzle/0002_audit_log_append_only.sql).
 */
import type { Db } from '../db/client.js';
import { auditLog } from '../db/schema.js';

export type AuditAction =
  | 'user.ban'
  | 'user.unban'
  | 'user.grant-admin'
  | 'user.revoke-admin'
  | 'user.adjust-tickets'
  | 'user.delete'
  | 'car.create'
  | 'car.rotate-secret'
  | 'car.delete'
  | 'car.generate-code'
  | 'car.kick'
  | 'car.command'
  | 'car.config'
  | 'car.lap-counter-id'
  | 'settings.update'
  | 'race.start'
  | 'race.end'
  | 'race.sync-lap-counter'
  | 'raffle.start'
  | 'raffle.add-entry'
  | 'raffle.draw'
  | 'raffle.abort'
  | 'prizes.clear'
  | 'integration.test-message';

/** Who acted: an admin, or the server itself (id null) for start-up provisioning. */
export interface AuditActor {
  id: number | null;
  username: string;
}

/** The server acting on its own configuration (SIM_CARS at start-up). */
export const SYSTEM_ACTOR: AuditActor = { id: null, username: 'system' };

export interface AuditEntry {
  actor: AuditActor;
  action: AuditAction;
  targetType: 'user' | 'car' | 'settings' | 'race' | 'raffle' | 'integration';
  targetId: string | number;
  /** The changed fields before and after the action. */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export async function recordAudit(tx: Db, entry: AuditEntry): Promise<void> {
  await tx.insert(auditLog).values({
    actorId: entry.actor.id,
    actorUsername: entry.actor.username,
    action: entry.action,
    targetType: entry.targetType,
    targetId: String(entry.targetId),
    before: entry.before,
    after: entry.after,
  });
}
