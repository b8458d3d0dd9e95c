/**
 * The bots' announcements (docs/integrations.md "Announcements"): a raffle opened, its winners, a
 * race's podium, made from the facts (`raffle.opened`, `raffle.drawn`, `race.finished`) and
 * handed to every chat integration through the hub, each platform posting it within its own
 * length and rate limits (or skipping it when it cannot write).
 *
 * The facts are handled on the leader only (integrations.module.ts `onLeader`): it runs the chat
 * bots, so an announcement is made once. Each one can be switched off by an admin (the run-time settings
 * `chat_announce_*`, read from memory when the fact arrives). Announcements are prepared one
 * after the other, so they reach the chats in the order of the facts even when one needs a query.
 */
import {
  type AdminSettings,
  CHAT_ANNOUNCEMENT_SETTINGS,
  type ChatAnnouncementKind,
  type RaceDetail,
} from '@telerace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { DomainEvents } from '../events.js';
import type { ChatAnnouncement, PodiumPlace } from './announcement-texts.js';
import type { IntegrationsService } from './integrations.service.js';

/** The places a podium names. */
const PODIUM_PLACES = 3;

export interface ChatAnnouncerDeps {
  hub: Pick<IntegrationsService, 'announce' | 'announces' | 'settings'>;
  settings: { current(): AdminSettings };
  /** A finished race's public results (GET /api/races/:id). */
  results: { race(raceId: number): Promise<RaceDetail> };
  /** `PUBLIC_URL/claim`: where winners claim their prize. */
  claimUrl: string;
  /** PRIZE_CLAIM_MINUTES. */
  claimMinutes: number;
  log: FastifyBaseLogger;
}

export class ChatAnnouncer {
  readonly #deps: ChatAnnouncerDeps;
  #queue: Promise<void> = Promise.resolve();

  constructor(deps: ChatAnnouncerDeps) {
    this.#deps = deps;
  }

  raffleOpened({ racers }: DomainEvents['raffle.opened']): void {
    this.#announce('raffle_opened', async () => ({
      kind: 'raffle_opened',
      joinCommand: this.#deps.hub.settings.joinCommand,
      winners: racers,
    }));
  }

  /** A draw without entries has no winners to name: nothing is said. */
  raffleDrawn({ winners }: DomainEvents['raffle.drawn']): void {
    if (winners.length === 0) return;
    this.#announce('raffle_winners', async () => ({
      kind: 'raffle_winners',
      names: winners.map((winner) => winner.displayName),
      claimUrl: this.#deps.claimUrl,
      claimMinutes: this.#deps.claimMinutes,
    }));
  }

  /**
   * The podium from the stored results. A race a restart found over (`recovered`) ended while no
   * server ran: its podium would be news from the past, so it is not announced.
   */
  raceFinished({ raceId, reason }: DomainEvents['race.finished']): void {
    if (reason === 'recovered') return;
    this.#announce('race_podium', async () => {
      const { participants } = await this.#deps.results.race(raceId);
      const podium: PodiumPlace[] = participants
        .filter((participant) => participant.position !== null)
        .sort((a, b) => (a.position as number) - (b.position as number))
        .slice(0, PODIUM_PLACES)
        .map((participant) => ({
          position: participant.position as number,
          name: participant.username,
          laps: participant.total_laps,
          bestLapMs: participant.best_lap_time_ms,
        }));
      return podium.length === 0 ? null : { kind: 'race_podium', podium };
    });
  }

  /** Resolves once every announcement asked for so far has been handed to the chats (tests). */
  settled(): Promise<void> {
    return this.#queue;
  }

  /** No chat configured to post in: nothing to prepare (no query for a podium). */
  #announce(kind: ChatAnnouncementKind, prepare: () => Promise<ChatAnnouncement | null>): void {
    if (!this.#deps.hub.announces()) return;
    if (!this.#deps.settings.current()[CHAT_ANNOUNCEMENT_SETTINGS[kind]]) {
      this.#deps.log.debug({ announcement: kind }, 'chat announcement switched off');
      return;
    }
    this.#queue = this.#queue
      .then(async () => {
        const announcement = await prepare();
        if (announcement) this.#deps.hub.announce(announcement);
      })
      .catch((error: unknown) =>
        this.#deps.log.warn({ err: error, announcement: kind }, 'a chat announcement could not be made'),
      );
  }
}
