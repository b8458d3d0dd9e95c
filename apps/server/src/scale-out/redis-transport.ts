/**
 * The event bus's transport between instances (issue 15): every fact reaches every instance's bus
 * exactly once.
 *
 * The fact goes to Redis with the sender's instance id (written first, not awaited), and the
 * publisher's own bus gets it at once, synchronously, as with the in-process transport (so `emit`
 * keeps its meaning: this instance's read models have changed when it returns); each instance
 * ignores its own echo. So local delivery never waits for Redis and keeps working while Redis is
 * down — then the other instances miss the fact: that is logged (once per outage, with the
 * count of facts lost when it ends). Facts from the other instances are checked against their
 * schemas (a rolling upgrade may run two versions at once) and delivered in the order their
 * instance published them, marked as from elsewhere (an `origin` handler runs only where its fact
 * was published: events.ts).
 *
 * Except the revocations (issue 39): a ban, a deletion, a password change, a log-out or a
 * demotion made while Redis was away must still reach the other instances, which would otherwise
 * keep the member's sockets open, their cars and their cached row. Nothing later corrects a
 * missed revocation, as the next drive or car state corrects a missed one, and acting on one late
 * only takes away what should already be gone. So each instance keeps its latest revocations, each
 * numbered: those that could not go are published once Redis is back, and an instance back on
 * Redis asks the others (`RESEND_CHANNEL`) for those made since it lost it — it may come back
 * after the one that published them. A revocation heard twice is acted on once.
 */
import { DOMAIN_EVENTS, type DomainEventName } from '@telerace/protocol/events';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { DomainEventEnvelope, EventTransport, FactSource } from '../events.js';
import type { RedisChannels } from './redis-channels.js';

export const EVENTS_CHANNEL = 'events';
/** Where an instance back on Redis asks for the revocations made since it lost it. */
export const RESEND_CHANNEL = 'events-resend';

/** The facts that take something away from a member: kept, published late rather than never. */
const REVOCATIONS: ReadonlySet<DomainEventName> = new Set([
  'user.sessions-revoked',
  'session.revoked',
  'user.role-changed',
]);
/** The latest revocations an instance keeps to send again. */
const KEPT_REVOCATIONS = 1_000;
/** Revocations heard, remembered to act on a resent one once. */
const HEARD_REVOCATIONS = 10_000;
/** The instances' clocks differ a little: a resend reaches back this much before the outage. */
const CLOCK_MARGIN_MS = 5_000;

/** A fact as it travels on Redis: who sent it, and the envelope; a revocation with its number and time. */
const WireFact = z.object({
  from: z.string(),
  name: z.string(),
  payload: z.unknown(),
  revocation: z.object({ seq: z.number().int(), at: z.number() }).optional(),
});
const ResendRequest = z.object({ from: z.string(), since: z.number() });

interface KeptRevocation {
  wire: string;
  at: number;
  /** Taken by Redis as far as this instance knows (false: to publish once Redis is back). */
  sent: boolean;
}

export class RedisTransport implements EventTransport {
  #deliver: ((event: DomainEventEnvelope, source: FactSource) => void) | undefined;
  /** Facts that could not cross since Redis went down (logged when it is back). */
  #lost = 0;
  #seq = 0;
  readonly #kept: KeptRevocation[] = [];
  readonly #heard = new LRUCache<string, true>({ max: HEARD_REVOCATIONS });
  /** When this instance lost Redis (undefined while connected). */
  #downSince: number | undefined;

  readonly channels: RedisChannels;
  readonly log: FastifyBaseLogger;

  constructor(deps: { channels: RedisChannels; log: FastifyBaseLogger }) {
    this.channels = deps.channels;
    this.log = deps.log;
    this.channels.onStateChange((connected) => {
      if (connected) this.#back();
      else this.#downSince ??= Date.now();
    });
  }

  publish(event: DomainEventEnvelope): void {
    // To Redis first (the command is written to its socket, nothing is awaited), then here: local
    // delivery may write a first chunk of a broadcast to thousands of sockets, and the other
    // instances should not start that much later (measured: 6–27 ms under load, bench fanout).
    const from = this.channels.instanceId;
    if (REVOCATIONS.has(event.name)) {
      const at = Date.now();
      this.#seq += 1;
      const kept = {
        wire: JSON.stringify({ from, ...event, revocation: { seq: this.#seq, at } }),
        at,
        sent: true,
      };
      this.#kept.push(kept);
      if (this.#kept.length > KEPT_REVOCATIONS) this.#kept.shift();
      this.#send(kept.wire, kept);
    } else this.#send(JSON.stringify({ from, name: event.name, payload: event.payload }));
    this.#deliver?.(event, 'here');
  }

  subscribe(deliver: (event: DomainEventEnvelope, source: FactSource) => void): void {
    this.#deliver = deliver;
    this.channels.subscribe(EVENTS_CHANNEL, (message) => this.#heardFact(message));
    this.channels.subscribe(RESEND_CHANNEL, (message) => this.#resend(message));
  }

  /** A revocation that cannot go now is published once Redis is back; any other fact is lost. */
  #send(wire: string, kept?: KeptRevocation): void {
    const unsent = () => {
      if (kept) kept.sent = false;
    };
    const sent = this.channels.publish(EVENTS_CHANNEL, wire, unsent);
    if (sent === 'sent') return;
    if (kept) unsent();
    else this.#lost += 1;
  }

  #back(): void {
    if (this.#lost > 0) {
      this.log.warn(
        { lost: this.#lost },
        'facts published while Redis was down did not reach the other instances',
      );
      this.#lost = 0;
    }
    const unsent = this.#kept.filter((kept) => !kept.sent);
    for (const kept of unsent) {
      kept.sent = true;
      this.#send(kept.wire, kept);
    }
    if (unsent.length > 0)
      this.log.info({ revocations: unsent.length }, 'revocations made while Redis was down published now');
    if (this.#downSince === undefined) return;
    const request = JSON.stringify({
      from: this.channels.instanceId,
      since: this.#downSince - CLOCK_MARGIN_MS,
    });
    this.#downSince = undefined;
    // Once the answers can be heard.
    void this.channels.subscribed().then(() => this.channels.publish(RESEND_CHANNEL, request));
  }

  /** Another instance is back on Redis: the revocations made since it lost it, again. */
  #resend(message: string): void {
    let request: z.infer<typeof ResendRequest>;
    try {
      request = ResendRequest.parse(JSON.parse(message));
    } catch {
      return;
    }
    if (request.from === this.channels.instanceId) return;
    for (const kept of this.#kept) if (kept.at >= request.since) this.#send(kept.wire, kept);
  }

  #heardFact(message: string): void {
    let wire: z.infer<typeof WireFact>;
    try {
      wire = WireFact.parse(JSON.parse(message));
    } catch (error) {
      this.log.error({ err: error }, 'unreadable fact from Redis dropped');
      return;
    }
    if (wire.from === this.channels.instanceId) return;
    if (wire.revocation) {
      const key = `${wire.from}:${wire.revocation.seq}`;
      if (this.#heard.has(key)) return;
      this.#heard.set(key, true);
    }
    const schema = DOMAIN_EVENTS[wire.name as DomainEventName];
    const checked = schema?.safeParse(wire.payload);
    if (!checked?.success) {
      this.log.error(
        { event: wire.name, issues: checked?.error.issues },
        'fact from another instance dropped (unknown or invalid)',
      );
      return;
    }
    this.#deliver?.({ name: wire.name, payload: checked.data } as DomainEventEnvelope, 'elsewhere');
  }
}
