/**
 * The integrations' hub: what every chat integration hands over (a viewer's join command, a
 * subscription, a donation) becomes a raffle entry or tickets here, in one place, each
 * integration reports its connection state here for the admin's Integrations tab, and the bots'
 * announcements (chat-announcer.ts) reach every chat from here.
 *
 * Integrations know their platform's protocol; this knows the product's rules: the join command,
 * one answer per viewer and raffle, donation currencies, the ticket ledger (docs/integrations.md).
 */
import {
  type AdminIntegrationsResponse,
  type ChatJoinOutcome,
  ERROR_KEYS,
  INTEGRATION_IDS,
  type IntegrationEvent,
  type IntegrationId,
  type IntegrationState,
  type IntegrationStatus,
  type Platform,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/client.js';
import { DomainError } from '../domain-error.js';
import { type AuditActor, recordAudit } from '../kernel/audit.repo.js';
import type { RafflesService } from '../modules/raffles/raffles.service.js';
import type {
  TicketChangeOutcome,
  TicketsService,
  WebhookDelivery,
} from '../modules/tickets/tickets.service.js';
import { type AnnouncementFormat, announcementText, type ChatAnnouncement } from './announcement-texts.js';
import { type ChatLanguage, chatReply, testMessage } from './chat-replies.js';

/** A viewer in a platform's chat. */
export interface Viewer {
  platform: Platform;
  platformUserId: string;
  displayName: string;
}

/** A donation as a platform reports it; `sourceId` is the platform's own id of it. */
export interface Donation {
  amount: number;
  currency: string;
  sourceId: string;
}

/** What a viewer did that changes tickets (the admin's recent events name the same kinds). */
export type TicketEvent =
  | ({ kind: 'donation'; viewer: Viewer } & Donation)
  | { kind: 'subscription'; viewer: Viewer; months: number }
  | { kind: 'subscription_end'; viewer: Viewer };

/** What a platform whose delivery failed is told to wait before sending it again. */
export const DELIVERY_RETRY_AFTER_SECONDS = 5;

/** What an integration tells the hub about itself when it starts. */
export interface IntegrationHandle {
  id: IntegrationId;
  /** The channel, live chat or guild it connects to, for the admin. */
  target: string | null;
  /** Writes a line in the platform's chat (absent where the platform does not allow it). */
  sendTestMessage?: (text: string) => Promise<void>;
  /**
   * Posts an announcement in the platform's chat, paced with its other lines, or skips it when it
   * cannot write now (absent where it never can). Never throws; logs a skip at debug only.
   */
  announce?: (announcement: ChatAnnouncement) => void;
}

export interface JoinAnswer {
  outcome: ChatJoinOutcome;
  /** Whether the bot should answer this viewer (once per viewer and raffle). */
  answer: boolean;
}

export interface IntegrationsSettings {
  joinCommand: string;
  language: ChatLanguage;
  /** USD per unit of each currency (USD: 1). */
  usdRates: Record<string, number>;
}

export interface IntegrationsServiceDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  raffles: RafflesService;
  tickets: TicketsService;
  settings: IntegrationsSettings;
}

/** How many recent events the admin sees. */
const RECENT_EVENTS = 50;
/** Viewers remembered as answered in one round (a round: while a raffle is open, or between two). */
const ANSWERED_LIMIT = 100_000;

interface StatusEntry {
  state: IntegrationState;
  target: string | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  since: Date;
  sendTestMessage?: (text: string) => Promise<void>;
  announce?: (announcement: ChatAnnouncement) => void;
}

export class IntegrationsService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #raffles: RafflesService;
  readonly #tickets: TicketsService;
  readonly settings: IntegrationsSettings;
  readonly #status = new Map<IntegrationId, StatusEntry>();
  readonly #recent: IntegrationEvent[] = [];
  /** `platform:id` of the viewers answered in this round. */
  #answered = new Set<string>();

  constructor(deps: IntegrationsServiceDeps) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#raffles = deps.raffles;
    this.#tickets = deps.tickets;
    this.settings = deps.settings;
    const now = this.#clock.now();
    for (const id of INTEGRATION_IDS) {
      this.#status.set(id, {
        state: 'not_configured',
        target: null,
        lastError: null,
        lastErrorAt: null,
        since: now,
      });
    }
  }

  // ── connection states ──────────────────────────────────────────────────────────────────

  /** An integration found its settings and starts connecting. */
  register(handle: IntegrationHandle): void {
    const entry = this.#entry(handle.id);
    entry.target = handle.target;
    entry.sendTestMessage = handle.sendTestMessage;
    entry.announce = handle.announce;
    this.setState(handle.id, 'connecting');
  }

  /** The integration's connection changed; `error` is kept (with its time) for the admin. */
  setState(id: IntegrationId, state: IntegrationState, error?: string): void {
    const entry = this.#entry(id);
    if (error !== undefined) {
      entry.lastError = error.slice(0, 300);
      entry.lastErrorAt = this.#clock.now();
    }
    if (entry.state !== state) {
      entry.state = state;
      entry.since = this.#clock.now();
      this.#log.info({ integration: id, state, error }, 'integration state');
    }
  }

  status(id: IntegrationId): IntegrationStatus {
    const entry = this.#entry(id);
    return {
      id,
      state: entry.state,
      target: entry.target,
      lastError: entry.lastError,
      lastErrorAt: entry.lastErrorAt?.toISOString() ?? null,
      since: entry.since.toISOString(),
      canSendTestMessage: entry.sendTestMessage !== undefined,
    };
  }

  // ── what viewers do ────────────────────────────────────────────────────────────────────

  /** Whether a chat line is the join command (its first word, any case). */
  isJoinCommand(text: string): boolean {
    const [first] = text.trim().split(/\s+/, 1);
    return first !== undefined && first.toLowerCase() === this.settings.joinCommand.toLowerCase();
  }

  /**
   * A viewer typed the join command: they enter the open raffle as (platform, id, name). Never
   * throws for the viewer's sake: a closed raffle or a banned account is an outcome to answer.
   */
  async join(viewer: Viewer): Promise<JoinAnswer> {
    let outcome: ChatJoinOutcome;
    try {
      const { entered } = await this.#raffles.enter(viewer);
      outcome = entered ? 'entered' : 'already_in';
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcome = error.errorKey === ERROR_KEYS.raffleNotOpen ? 'no_raffle' : 'refused';
    }
    this.#note({ platform: viewer.platform, kind: 'join', displayName: viewer.displayName, outcome });
    const key = `${viewer.platform}:${viewer.platformUserId}`;
    const answer = !this.#answered.has(key);
    if (answer && this.#answered.size < ANSWERED_LIMIT) this.#answered.add(key);
    return { outcome, answer };
  }

  /** The bot's answer to viewers with one outcome ("@a, @b: you're in…"). */
  reply(outcome: ChatJoinOutcome, mentions: readonly string[]): string {
    return chatReply(this.settings.language, outcome, mentions);
  }

  /** An announcement, in every chat whose integration can post it (chat-announcer.ts). */
  announce(announcement: ChatAnnouncement): void {
    for (const [id, entry] of this.#status) {
      try {
        entry.announce?.(announcement);
      } catch (error) {
        this.#log.warn({ err: error, integration: id }, 'a chat announcement could not be posted');
      }
    }
  }

  /** Whether any chat integration can post announcements (none configured: nothing to prepare). */
  announces(): boolean {
    return [...this.#status.values()].some((entry) => entry.announce !== undefined);
  }

  /** An announcement's text in the chats' language, as a platform can post it. */
  announcementText(announcement: ChatAnnouncement, format: AnnouncementFormat): string {
    return announcementText(this.settings.language, announcement, format);
  }

  /** A raffle opened or ended: every viewer may get one answer again. */
  newRound(): void {
    this.#answered = new Set();
  }

  /**
   * A donation (bits, a Super Chat or Sticker, a tip): 1 ticket per whole USD, other currencies
   * through DONATION_USD_RATES. Idempotent on `sourceId` (the platform's id of the donation).
   * Returns the tickets it gave (0 for a replay or a currency without a rate). Throws when the
   * database refuses the write: the caller reads the donation again (docs/integrations.md).
   */
  async donation(viewer: Viewer, donation: Donation): Promise<number> {
    return (await this.#apply({ kind: 'donation', viewer, ...donation })).tickets;
  }

  /** A viewer subscribed (months 0) or renewed after `months` cumulative months. */
  async subscribed(viewer: Viewer, months: number): Promise<void> {
    await this.#apply({ kind: 'subscription', viewer, months });
  }

  /** A viewer's subscription ended: their loyalty tickets go. False when none was active (nothing noted). */
  async unsubscribed(viewer: Viewer): Promise<boolean> {
    return (await this.#apply({ kind: 'subscription_end', viewer })).changed;
  }

  /**
   * A webhook delivery of what a viewer did, applied once: recorded in the same transaction as
   * its tickets (TicketsService.apply). When that write fails, nothing is recorded and the
   * refusal is `unavailable` (503, Retry-After), so the platform delivers it again.
   */
  async delivered(
    delivery: WebhookDelivery,
    event: TicketEvent,
  ): Promise<{ duplicate: boolean; tickets: number }> {
    try {
      const { duplicate, tickets } = await this.#apply(event, delivery);
      return { duplicate, tickets };
    } catch (error) {
      this.#log.error(
        { err: error, source: delivery.source, deliveryId: delivery.deliveryId },
        'webhook delivery not applied; the platform will deliver it again',
      );
      throw new DomainError(
        'unavailable',
        'The delivery could not be recorded; deliver it again.',
        ERROR_KEYS.internal,
        { retryAfterSeconds: DELIVERY_RETRY_AFTER_SECONDS },
      );
    }
  }

  async #apply(
    event: TicketEvent,
    delivery?: WebhookDelivery,
  ): Promise<{ duplicate: boolean; changed: boolean; tickets: number }> {
    const { viewer } = event;
    const identity = { platform: viewer.platform, platformUserId: viewer.platformUserId };
    let outcome: TicketChangeOutcome;
    switch (event.kind) {
      case 'donation': {
        const currency = event.currency.toUpperCase();
        const tickets = this.#donationTickets(event.amount, currency, viewer.platform);
        outcome = await this.#tickets.apply(
          identity,
          { kind: 'donation', tickets, sourceId: event.sourceId },
          delivery,
        );
        // A donation of no tickets is shown too: the admin sees a currency without a rate.
        if (outcome === 'applied' || (outcome === 'unchanged' && tickets === 0)) {
          this.#note({
            platform: viewer.platform,
            kind: 'donation',
            displayName: viewer.displayName,
            amount: event.amount,
            currency,
            tickets,
          });
        }
        const given = outcome === 'applied' ? tickets : 0;
        return { duplicate: outcome === 'duplicate', changed: given > 0, tickets: given };
      }
      case 'subscription':
        outcome = await this.#tickets.apply(identity, { kind: 'subscribed', months: event.months }, delivery);
        if (outcome === 'applied') {
          this.#note({
            platform: viewer.platform,
            kind: 'subscription',
            displayName: viewer.displayName,
            months: event.months,
          });
        }
        break;
      case 'subscription_end':
        outcome = await this.#tickets.apply(identity, { kind: 'unsubscribed' }, delivery);
        if (outcome === 'applied') {
          this.#note({
            platform: viewer.platform,
            kind: 'subscription_end',
            displayName: viewer.displayName,
          });
        }
        break;
    }
    return { duplicate: outcome === 'duplicate', changed: outcome === 'applied', tickets: 0 };
  }

  /** 1 ticket per whole USD; 0 (logged, so the operator can add the rate) for a currency without a rate. */
  #donationTickets(amount: number, currency: string, platform: Platform): number {
    const rate = this.settings.usdRates[currency];
    if (rate === undefined) {
      this.#log.warn({ currency, platform }, 'donation in a currency without a rate: no tickets');
      return 0;
    }
    return Math.floor(amount * rate + 1e-9);
  }

  // ── the admin's view ───────────────────────────────────────────────────────────────────

  async adminView(): Promise<AdminIntegrationsResponse> {
    return {
      joinCommand: this.settings.joinCommand,
      integrations: INTEGRATION_IDS.map((id) => this.status(id)),
      openRaffleEntries: await this.#raffles.openEntriesByPlatform(),
      recentEvents: [...this.#recent],
    };
  }

  /** "Send test message": a line in the platform's chat, audited. */
  async sendTestMessage(actor: AuditActor, id: IntegrationId, message?: string): Promise<void> {
    const entry = this.#entry(id);
    if (!entry.sendTestMessage) {
      throw new DomainError(
        'invalid',
        'This integration cannot send a chat message.',
        ERROR_KEYS.testMessageUnsupported,
      );
    }
    if (entry.state !== 'connected') {
      throw new DomainError(
        'conflict',
        'This integration is not connected; the message was not sent.',
        ERROR_KEYS.integrationNotConnected,
      );
    }
    const text = message ?? testMessage(this.settings.language);
    await entry.sendTestMessage(text);
    await recordAudit(this.#db, {
      actor,
      action: 'integration.test-message',
      targetType: 'integration',
      targetId: id,
      before: null,
      after: { message: text },
    });
  }

  #entry(id: IntegrationId): StatusEntry {
    const entry = this.#status.get(id);
    if (!entry) throw new Error(`unknown integration ${id}`);
    return entry;
  }

  #note(event: Omit<IntegrationEvent, 'at'>): void {
    this.#recent.unshift({ at: this.#clock.now().toISOString(), ...event });
    this.#recent.length = Math.min(this.#recent.length, RECENT_EVENTS);
  }
}
