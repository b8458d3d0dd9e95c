/**
 * Discord has no paid subscription a bot can see, so the guild's own signs of support count as one
 * for loyalty tickets (docs/integrations.md "Discord"):
 * - with DISCORD_LOYALTY_ROLE_ID set, a member holding that role is a subscriber; their tier
 *   counts from when the bot first saw them with it (months 0; the ledger keeps the earliest start
 *   while it stays active);
 * - without it, a server booster is one, for the whole months since they started boosting
 *   (`premium_since`).
 * Losing the role (or the boost) ends the subscription and its tickets.
 *
 * The bot asks for no privileged intent to read members: it sees a member's roles and boost on
 * what the member does (a `/join`, a message in the channel), which is also when an entry's
 * weight starts to matter.
 */
import { Backoff } from '@telerace/protocol';
import type { APIInteractionGuildMember, GuildMember } from 'discord.js';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Clock, ClockTimer } from '../../clock.js';
import { wholeMonthsBetween } from '../../modules/tickets/tickets.service.js';
import type { IntegrationsService, Viewer } from '../integrations.service.js';

/** What counts about a member: their role ids and when they started boosting. */
export interface MemberStanding {
  roles: readonly string[];
  premiumSince: Date | null;
}

/** How many members' standing is remembered between their messages (a guild of any size). */
const REMEMBERED_MEMBERS = 50_000;

/** A member as discord.js gives it (a cached GuildMember, or the interaction's raw member). */
export type AnyMember = GuildMember | APIInteractionGuildMember | null;

export function memberStanding(member: AnyMember): MemberStanding | null {
  if (!member) return null;
  // The raw payload's roles are an array of ids; a cached GuildMember's are a manager.
  if (Array.isArray(member.roles)) {
    const raw = member as APIInteractionGuildMember;
    return { roles: raw.roles, premiumSince: raw.premium_since ? new Date(raw.premium_since) : null };
  }
  const cached = member as GuildMember;
  return { roles: [...cached.roles.cache.keys()], premiumSince: cached.premiumSince };
}

/** The rule above: the months to subscribe the member with, or null when they are not loyal. */
export function loyaltyMonths(
  standing: MemberStanding,
  loyaltyRoleId: string | null,
  now: Date,
): number | null {
  if (loyaltyRoleId !== null) return standing.roles.includes(loyaltyRoleId) ? 0 : null;
  return standing.premiumSince ? wholeMonthsBetween(standing.premiumSince, now) : null;
}

/** A loyalty the database refused is written again after 1 s, doubling up to a minute. */
const RETRY_DELAYS = { initialMs: 1_000, maxMs: 60_000 };

/**
 * Tells the hub when a member's loyalty changes. Only changes: the members' last standing is
 * remembered, so a chatty booster does not write a subscription on each message.
 *
 * Discord never delivers a gateway event twice, and the member may not act again soon: a write
 * the database refuses is kept (the member's latest standing) and tried again with backoff until
 * it is recorded, in this process (docs/integrations.md "Discord").
 */
export class DiscordLoyalty {
  /** Each member's loyalty months as last recorded (null: none), the least recently seen forgotten first. */
  readonly #known = new LRUCache<string, { months: number | null }>({ max: REMEMBERED_MEMBERS });
  /** Standings not recorded yet, by member id. */
  readonly #unrecorded = new Map<string, { viewer: Viewer; standing: MemberStanding }>();
  /** The latest standing seen of each member whose write is under way or waiting. */
  readonly #latest = new Map<string, MemberStanding>();
  readonly #backoff = new Backoff(RETRY_DELAYS);
  #retryTimer: ClockTimer | undefined;
  #stopped = true;

  constructor(
    private readonly deps: {
      hub: IntegrationsService;
      clock: Clock;
      log: FastifyBaseLogger;
      loyaltyRoleId: string | null;
    },
  ) {}

  /** The bot connects: members' standings are recorded again. */
  start(): void {
    this.#stopped = false;
  }

  /** The bot stopped (here, or this instance no longer leads): the retries waiting are dropped. */
  stop(): void {
    this.#stopped = true;
    this.deps.clock.clear(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#unrecorded.clear();
    this.#latest.clear();
  }

  /** The member did something: their role or boost, as seen now. Never throws. */
  async seen(viewer: Viewer, standing: MemberStanding | null): Promise<void> {
    if (!standing) return;
    // The newest standing is what counts: an older one waiting for its retry is dropped.
    this.#unrecorded.delete(viewer.platformUserId);
    this.#latest.set(viewer.platformUserId, standing);
    await this.#record(viewer, standing);
  }

  async #record(viewer: Viewer, standing: MemberStanding): Promise<void> {
    const id = viewer.platformUserId;
    const months = loyaltyMonths(standing, this.deps.loyaltyRoleId, this.deps.clock.now());
    try {
      if (this.#known.get(id)?.months !== months) {
        if (months !== null) {
          await this.deps.hub.subscribed(viewer, months);
        } else {
          // Loyal before (here or before a restart): the role or the boost is gone. The hub ends an
          // active subscription only, so a member who never was loyal changes nothing.
          await this.deps.hub.unsubscribed(viewer);
        }
        this.#known.set(id, { months });
      }
    } catch (error) {
      this.deps.log.error({ err: error }, 'discord: could not record a member’s loyalty; trying again');
      // Unless a newer standing arrived while this one was being written: that one is what counts.
      if (this.#latest.get(id) === standing && !this.#stopped) {
        this.#unrecorded.set(id, { viewer, standing });
        this.#scheduleRetry();
        return;
      }
    }
    if (this.#latest.get(id) === standing) this.#latest.delete(id);
  }

  #scheduleRetry(): void {
    if (this.#retryTimer !== undefined) return;
    this.#retryTimer = this.deps.clock.setTimeout(() => {
      this.#retryTimer = undefined;
      void this.#retry();
    }, this.#backoff.next());
  }

  async #retry(): Promise<void> {
    const due = [...this.#unrecorded.values()];
    this.#unrecorded.clear();
    for (const { viewer, standing } of due) {
      if (this.#latest.get(viewer.platformUserId) === standing) await this.#record(viewer, standing);
    }
    if (this.#unrecorded.size === 0) this.#backoff.reset();
  }
}
