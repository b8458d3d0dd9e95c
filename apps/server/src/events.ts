/**
 * Typed domain events. Services emit them; gateways (sockets, later Redis across instances) turn
 * them into messages, so domain code never touches a socket.
 */
import { EventEmitter } from 'node:events';
import type { CarConfig, CarSessionEndReason } from '@telerace/protocol';

export interface DomainEvents {
  /** Every session of the user must end now (ban, deletion, password change or reset). */
  'user.sessions-revoked': {
    userId: number;
    reason: 'banned' | 'deleted' | 'password-changed' | 'logout-all';
  };
  /**
   * One session (refresh-token family) ended: log-out, or the refresh token was replayed. The
   * sockets opened with that session's access tokens must close.
   */
  'session.revoked': { userId: number; sessionId: string };
  /** An admin granted or removed the admin role: open sockets must act on the new role. */
  'user.role-changed': { userId: number; isAdmin: boolean };
  /**
   * A users row changed in a way some answer or check reads (ban, deletion, role, password,
   * details, profile, theme, terms, sign-in), emitted after the commit by every writer. The user
   * cache drops the row at once; the car directory renames a driver (`username` is the name after
   * the change).
   */
  'user.changed': { userId: number; username: string };
  /** An admin (or SIM_CARS) created a car: what the members' car list shows of it. */
  'car.created': {
    carId: number;
    name: string;
    imageUrl: string | null;
    streamId: number;
    config: CarConfig;
  };
  /** A member now holds the car (connect with a code). */
  'car.session-started': {
    carId: number;
    userId: number;
    /** The driver's name as the car list shows it. */
    username: string;
    sessionId: number;
    expiresAt: Date;
  };
  /** A car agent finished its handshake (it can receive messages now). */
  'car.online': { carId: number };
  /** A car agent's socket closed. */
  'car.offline': { carId: number };
  /** A driving session ended: the car must stop at once and the driver be told. */
  'car.session-ended': { carId: number; userId: number; sessionId: number; reason: CarSessionEndReason };
  /** The car was deleted (its socket must close) — emitted after its session ended. */
  'car.deleted': { carId: number };
  /** The car's secret changed: the socket authenticated with the old one must close. */
  'car.secret-rotated': { carId: number };
  /** The admin changed the car's limits: push them to the car. */
  'car.config-changed': { carId: number; config: CarConfig };
  /** An admin command for the car (the service checked that it is online). */
  'car.command': { carId: number; command: 'reboot' | 'shutdown' };
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
