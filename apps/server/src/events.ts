/**
 * The domain event bus. Services publish facts after their commit (`emit`); modules declare what
 * they do about them (`on` in their definition, see module.ts). The facts and their schemas live
 * in the protocol package (`@telerace/protocol/events`): plain JSON, checked on the way in.
 *
 * Delivery goes through a transport: in one process it hands the fact straight back to this bus;
 * with REDIS_URL, `scale-out/redis-transport.ts` also publishes it so every instance hears every fact.
 * Each handler says where it runs (`HandlerPlace`): a read model or this instance's own sockets on
 * every instance; a write the fact causes once, where the fact was published or on the leader —
 * so N instances do not write N times, and no write leans on a guard against its own repeats.
 * Listeners are isolated from each other and from the emitter: one that throws (or whose promise
 * rejects) is logged, and the others and the emitting request carry on — the change has already
 * committed, so the emitter has nothing to undo.
 */
import { DOMAIN_EVENTS, type DomainEventName, type DomainEvents } from '@telerace/protocol/events';

export type { DomainEventName, DomainEvents };

export type EventHandler<K extends DomainEventName> = (payload: DomainEvents[K]) => unknown;
/** What a module does about each fact it cares about. */
export type EventHandlers = { [K in DomainEventName]?: EventHandler<K> };

/**
 * Where a handler runs when several instances hear every fact (docs/decisions.md "Scale-out").
 * - `every`: on every instance — what the instance keeps in memory or tells its own sockets and cars.
 * - `origin`: once, on the instance that published the fact — a write the fact causes. It hears its
 *   own facts at once, before `emit` returns, even while Redis is down.
 * - `leader`: once, on the instance that leads (scale-out/leadership.ts) — work on what only the
 *   leader holds (the race engine, the chat bots). A fact published while nobody leads (a
 *   failover), or from a follower while Redis is down, is not handled there: the leader's start
 *   resumes from the database instead.
 * One process is all three places at once.
 */
export type HandlerPlace = 'every' | 'origin' | 'leader';

/** A published fact, as it travels. */
export interface DomainEventEnvelope<K extends DomainEventName = DomainEventName> {
  name: K;
  payload: DomainEvents[K];
}

/** Whether a delivered fact was published by this instance (`here`) or by another one. */
export type FactSource = 'here' | 'elsewhere';

/** Carries facts from the publishing bus to every subscribed bus (this process, or all instances). */
export interface EventTransport {
  publish(event: DomainEventEnvelope): void;
  subscribe(deliver: (event: DomainEventEnvelope, source: FactSource) => void): void;
}

/** Delivers in this process, synchronously, before `emit` returns (the default). */
export class InProcessTransport implements EventTransport {
  #deliver: ((event: DomainEventEnvelope, source: FactSource) => void) | undefined;

  publish(event: DomainEventEnvelope): void {
    this.#deliver?.(event, 'here');
  }

  subscribe(deliver: (event: DomainEventEnvelope, source: FactSource) => void): void {
    this.#deliver = deliver;
  }
}

/** Where the bus reports listener failures and refused facts. */
export interface EventLog {
  error(details: object, message: string): void;
}

export interface EventBusOptions {
  transport?: EventTransport;
  log?: EventLog;
  /** Throw on a payload that does not match its schema (tests); otherwise log it and drop it. */
  strict?: boolean;
  /** Whether this instance leads now, for `leader` handlers (default: always, one process). */
  leads?: () => boolean;
}

interface Listener {
  handle: (payload: never) => unknown;
  place: HandlerPlace;
}

export class EventBus {
  readonly #listeners = new Map<DomainEventName, Set<Listener>>();
  readonly #transport: EventTransport;
  readonly #log: EventLog;
  readonly #strict: boolean;
  readonly #leads: () => boolean;

  constructor(options: EventBusOptions = {}) {
    this.#transport = options.transport ?? new InProcessTransport();
    this.#log = options.log ?? { error: (details, message) => console.error(message, details) };
    this.#strict = options.strict ?? false;
    this.#leads = options.leads ?? (() => true);
    this.#transport.subscribe((event, source) => this.#deliver(event, source));
  }

  /** Publishes a fact. Never throws for a listener's failure. */
  emit<K extends DomainEventName>(name: K, payload: DomainEvents[K]): void {
    const checked = DOMAIN_EVENTS[name].safeParse(payload);
    if (!checked.success) {
      if (this.#strict) throw new Error(`invalid ${name} event: ${checked.error.message}`);
      this.#log.error({ event: name, issues: checked.error.issues }, 'invalid domain event dropped');
      return;
    }
    this.#transport.publish({ name, payload: checked.data as DomainEvents[K] });
  }

  /** Subscribes one listener, run at `place`; returns its unsubscribe. */
  on<K extends DomainEventName>(
    name: K,
    listener: EventHandler<K>,
    place: HandlerPlace = 'every',
  ): () => void {
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    const entry: Listener = { handle: listener as (payload: never) => unknown, place };
    set.add(entry);
    return () => set.delete(entry);
  }

  /** Subscribes a module's handlers for one place; returns one unsubscribe for all of them. */
  onAll(handlers: EventHandlers, place: HandlerPlace = 'every'): () => void {
    const offs = Object.entries(handlers).map(([name, handler]) =>
      this.on(name as DomainEventName, handler as EventHandler<DomainEventName>, place),
    );
    return () => {
      for (const off of offs) off();
    };
  }

  #deliver({ name, payload }: DomainEventEnvelope, source: FactSource): void {
    for (const listener of [...(this.#listeners.get(name) ?? [])]) {
      if (!this.#runsHere(listener.place, source)) continue;
      try {
        const result = (listener.handle as (payload: unknown) => unknown)(payload);
        if (result instanceof Promise) result.catch((error: unknown) => this.#failed(name, error));
      } catch (error) {
        this.#failed(name, error);
      }
    }
  }

  #runsHere(place: HandlerPlace, source: FactSource): boolean {
    if (place === 'origin') return source === 'here';
    if (place === 'leader') return this.#leads();
    return true;
  }

  #failed(name: DomainEventName, error: unknown): void {
    this.#log.error({ err: error, event: name }, 'domain event listener failed');
  }
}
