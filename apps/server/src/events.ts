/**
 * The domain event bus. Services publish facts after their commit (`emit`); modules declare what
 * they do about them (`on` in their definition, see module.ts). The facts and their schemas live
 * in the protocol package (`@telerace/protocol/events`): plain JSON, checked on the way in.
 *
 * Delivery goes through a transport: in one process it hands the fact straight back to this bus;
 * with REDIS_URL, `scale-out/redis-transport.ts` also publishes it so every instance hears every fact.
 * Listeners are isolated from each other and from the emitter: one that throws (or whose promise
 * rejects) is logged, and the others and the emitting request carry on — the change has already
 * committed, so the emitter has nothing to undo.
 */
import { DOMAIN_EVENTS, type DomainEventName, type DomainEvents } from '@telerace/protocol/events';

export type { DomainEventName, DomainEvents };

export type EventHandler<K extends DomainEventName> = (payload: DomainEvents[K]) => unknown;
/** What a module does about each fact it cares about. */
export type EventHandlers = { [K in DomainEventName]?: EventHandler<K> };

/** A published fact, as it travels. */
export interface DomainEventEnvelope<K extends DomainEventName = DomainEventName> {
  name: K;
  payload: DomainEvents[K];
}

/** Carries facts from the publishing bus to every subscribed bus (this process, or all instances). */
export interface EventTransport {
  publish(event: DomainEventEnvelope): void;
  subscribe(deliver: (event: DomainEventEnvelope) => void): void;
}

/** Delivers in this process, synchronously, before `emit` returns (the default). */
export class InProcessTransport implements EventTransport {
  #deliver: ((event: DomainEventEnvelope) => void) | undefined;

  publish(event: DomainEventEnvelope): void {
    this.#deliver?.(event);
  }

  subscribe(deliver: (event: DomainEventEnvelope) => void): void {
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
}

export class EventBus {
  readonly #listeners = new Map<DomainEventName, Set<(payload: never) => unknown>>();
  readonly #transport: EventTransport;
  readonly #log: EventLog;
  readonly #strict: boolean;

  constructor(options: EventBusOptions = {}) {
    this.#transport = options.transport ?? new InProcessTransport();
    this.#log = options.log ?? { error: (details, message) => console.error(message, details) };
    this.#strict = options.strict ?? false;
    this.#transport.subscribe((event) => this.#deliver(event));
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

  /** Subscribes one listener; returns its unsubscribe. */
  on<K extends DomainEventName>(name: K, listener: EventHandler<K>): () => void {
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    const entry = listener as (payload: never) => unknown;
    set.add(entry);
    return () => set.delete(entry);
  }

  /** Subscribes a module's handlers; returns one unsubscribe for all of them. */
  onAll(handlers: EventHandlers): () => void {
    const offs = Object.entries(handlers).map(([name, handler]) =>
      this.on(name as DomainEventName, handler as EventHandler<DomainEventName>),
    );
    return () => {
      for (const off of offs) off();
    };
  }

  #deliver({ name, payload }: DomainEventEnvelope): void {
    for (const listener of [...(this.#listeners.get(name) ?? [])]) {
      try {
        const result = (listener as (payload: unknown) => unknown)(payload);
        if (result instanceof Promise) result.catch((error: unknown) => this.#failed(name, error));
      } catch (error) {
        this.#failed(name, error);
      }
    }
  }

  #failed(name: DomainEventName, error: unknown): void {
    this.#log.error({ err: error, event: name }, 'domain event listener failed');
  }
}
