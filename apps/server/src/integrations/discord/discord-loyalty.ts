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
import type { APIInteractionGuildMember, GuildMember } from 'discord.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
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

/**
 * Tells the hub when a member's loyalty changes. Only changes: the members' last standing is
 * remembered, so a chatty booster does not write a subscription on each message.
 */
export class DiscordLoyalty {
  readonly #known = new Map<string, number | null>();

  constructor(
    private readonly deps: {
      hub: IntegrationsService;
      clock: Clock;
      log: FastifyBaseLogger;
      loyaltyRoleId: string | null;
    },
  ) {}

  /** The member did something: their role or boost, as seen now. Never throws. */
  async seen(viewer: Viewer, standing: MemberStanding | null): Promise<void> {
    if (!standing) return;
    try {
      const months = loyaltyMonths(standing, this.deps.loyaltyRoleId, this.deps.clock.now());
      const known = this.#known.get(viewer.platformUserId);
      if (known === months) return;
      if (months !== null) {
        await this.deps.hub.subscribed(viewer, months);
      } else {
        // Loyal before (here or before a restart): the role or the boost is gone. The hub ends an
        // active subscription only, so a member who never was loyal changes nothing.
        await this.deps.hub.unsubscribed(viewer);
      }
      if (this.#known.size >= REMEMBERED_MEMBERS) this.#known.clear();
      this.#known.set(viewer.platformUserId, months);
    } catch (error) {
      this.deps.log.error({ err: error }, 'discord: could not record a member’s loyalty');
    }
  }
}
