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
 */
import { DOMAIN_EVENTS, type DomainEventName } from '@telerace/protocol/events';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { DomainEventEnvelope, EventTransport, FactSource } from '../events.js';
import type { RedisChannels } from './redis-channels.js';

export const EVENTS_CHANNEL = 'events';

/** A fact as it travels on Redis: who sent it, and the envelope. */
const WireFact = z.object({ from: z.string(), name: z.string(), payload: z.unknown() });

export class RedisTransport implements EventTransport {
  #deliver: ((event: DomainEventEnvelope, source: FactSource) => void) | undefined;
  /** Facts that could not cross since Redis went down (logged when it is back). */
  #lost = 0;

  readonly channels: RedisChannels;
  readonly log: FastifyBaseLogger;

  constructor(deps: { channels: RedisChannels; log: FastifyBaseLogger }) {
    this.channels = deps.channels;
    this.log = deps.log;
    this.channels.onStateChange((connected) => {
      if (connected && this.#lost > 0) {
        this.log.warn(
          { lost: this.#lost },
          'facts published while Redis was down did not reach the other instances',
        );
        this.#lost = 0;
      }
    });
  }

  publish(event: DomainEventEnvelope): void {
    // To Redis first (the command is written to its socket, nothing is awaited), then here: local
    // delivery may write a first chunk of a broadcast to thousands of sockets, and the other
    // instances should not start that much later (measured: 6–27 ms under load, bench fanout).
    const sent = this.channels.publish(
      EVENTS_CHANNEL,
      JSON.stringify({ from: this.channels.instanceId, name: event.name, payload: event.payload }),
    );
    if (sent === 'redis_down') this.#lost += 1;
    this.#deliver?.(event, 'here');
  }

  subscribe(deliver: (event: DomainEventEnvelope, source: FactSource) => void): void {
    this.#deliver = deliver;
    this.channels.subscribe(EVENTS_CHANNEL, (message) => this.#heard(message));
  }

  #heard(message: string): void {
    let wire: z.infer<typeof WireFact>;
    try {
      wire = WireFact.parse(JSON.parse(message));
    } catch (error) {
      this.log.error({ err: error }, 'unreadable fact from Redis dropped');
      return;
    }
    if (wire.from === this.channels.instanceId) return;
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
