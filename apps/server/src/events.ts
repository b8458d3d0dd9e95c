/**
 * Typed domain events. Services emit them; gateways (sockets, later Redis across instances) turn
 * them into messages, so domain code never touches a socket.
 */
import { EventEmitter } from 'node:events';

export interface DomainEvents {
  /** Every session of the user must end now (ban, deletion, password change or reset). */
  'user.sessions-revoked': {
    userId: number;
    reason: 'banned' | 'deleted' | 'password-changed' | 'logout-all';
  };
}

export type DomainEventName = keyof DomainEvents;

export class EventBus {
  readonly #emitter = new EventEmitter();

  emit<K extends DomainEventName>(name: K, payload: DomainEvents[K]): void {
    this.#emitter.emit(name, payload);
  }

  on<K extends DomainEventName>(name: K, listener: (payload: DomainEvents[K]) => void): () => void {
    this.#emitter.on(name, listener);
    return () => this.#emitter.off(name, listener);
  }
}
