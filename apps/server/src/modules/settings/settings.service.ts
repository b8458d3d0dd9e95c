/**
 * The admin's run-time settings (GET/PATCH /api/admin/settings): the car session duration, the
 * race settings and which announcements the chat bots make. Held in memory (loaded once, replaced by each save) so a connect, a
 * countdown or a pass reads them without a query; every save is audited and emits
 * `settings.changed` with all of them.
 */
import { AdminSettings, type AdminSettingsPatch, DEFAULT_ADMIN_SETTINGS } from '@telerace/protocol';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../events.js';
import { type AuditActor, recordAudit } from '../../kernel/audit.repo.js';
import { readSettingValues, writeSettingValue } from './settings.repo.js';

const KEYS = Object.keys(DEFAULT_ADMIN_SETTINGS) as (keyof AdminSettings)[];

export class SettingsService {
  readonly #db: Db;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  #current: AdminSettings | null = null;

  constructor({ db, bus, clock }: { db: Db; bus: EventBus; clock: Clock }) {
    this.#db = db;
    this.#bus = bus;
    this.#clock = clock;
  }

  /** Reads the stored values (start-up); a missing or invalid one keeps its default. */
  async load(): Promise<AdminSettings> {
    const stored = await readSettingValues(this.#db, KEYS);
    const merged: Record<string, unknown> = { ...DEFAULT_ADMIN_SETTINGS };
    for (const key of KEYS) {
      const candidate = { ...DEFAULT_ADMIN_SETTINGS, [key]: stored.get(key) };
      if (stored.has(key) && AdminSettings.safeParse(candidate).success) merged[key] = stored.get(key);
    }
    this.#current = AdminSettings.parse(merged);
    return this.#current;
  }

  /** The settings in force (loaded on first use when a request beats the start-up load). */
  async get(): Promise<AdminSettings> {
    return this.#current ?? this.load();
  }

  /** The settings in force, from memory (after start-up; the defaults before). */
  current(): AdminSettings {
    return this.#current ?? DEFAULT_ADMIN_SETTINGS;
  }

  /** Saves the given settings (the others keep their values); new sessions and races get them. */
  async update(actor: AuditActor, patch: AdminSettingsPatch): Promise<AdminSettings> {
    const now = this.#clock.now();
    const after = await this.#db.transaction(async (tx) => {
      const before = await this.get();
      const next = AdminSettings.parse({ ...before, ...patch });
      const changed = KEYS.filter((key) => patch[key] !== undefined);
      for (const key of changed) await writeSettingValue(tx, key, next[key], now);
      await recordAudit(tx, {
        actor,
        action: 'settings.update',
        targetType: 'settings',
        targetId: changed.join(','),
        before: Object.fromEntries(changed.map((key) => [key, before[key]])),
        after: Object.fromEntries(changed.map((key) => [key, next[key]])),
      });
      return next;
    });
    // Every instance (this one included, at once) takes them from the fact.
    this.#bus.emit('settings.changed', { settings: after });
    return after;
  }

  /** Settings saved by an admin on any instance (`settings.changed`). */
  applied(settings: AdminSettings): void {
    this.#current = settings;
  }
}
