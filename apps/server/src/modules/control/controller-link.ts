/**
 * One driver's control socket. The kit (sockets/) pings it every CONTROL_LIMITS.controllerPingMs
 * and drops it when nothing (message or pong) was heard for CONTROL_LIMITS.controllerSilenceMs:
 * the relay then stops the car. It lives as long as its access token, renewed with
 * `auth {token}` (sockets/socket-token.ts). Car settings are saved over REST only.
 */
import { type ControllerServerMessage, SOCKET_CLOSE_CODES } from '@telerace/protocol';
import type { Clock } from '../../clock.js';
import type { UserRow } from '../../kernel/users.repo.js';
import type { MemberSocket, Revocation } from '../../sockets/member-sockets.js';
import type { SocketConnection } from '../../sockets/socket-connection.js';
import { SocketToken, type TokenCheck } from '../../sockets/socket-token.js';
import type { AccessTokenClaims } from '../auth/access-token.js';

/** Who opened the controller socket, and how to check them again later. */
export interface ControllerAccess {
  /** The member as the upgrade found them. */
  user: UserRow;
  /** The access token the socket was opened with. */
  claims: AccessTokenClaims;
  /** Verifies the token of an `auth` message. */
  check: TokenCheck;
  /** The server's clock: the socket closes when it reaches the token's expiry. */
  clock: Clock;
}

export interface ControllerLinkHandlers {
  onDrive(link: ControllerLink, throttle: number, steer: number): void;
  /** The member's sessions, or this socket's, were revoked (the member-sockets registry says so). */
  onRevoked(link: ControllerLink, revocation: Revocation): void;
  onClose(link: ControllerLink): void;
}

export class ControllerLink implements MemberSocket {
  #user: UserRow;
  readonly #token: SocketToken;

  constructor(
    readonly carId: number,
    readonly sessionId: number,
    readonly access: ControllerAccess,
    readonly connection: SocketConnection,
    readonly handlers: ControllerLinkHandlers,
  ) {
    this.#user = access.user;
    this.#token = new SocketToken(access.claims, access.clock, () =>
      this.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token expired'),
    );
    connection.onClose(() => {
      this.#token.stop();
      handlers.onClose(this);
    });
  }

  /** The member as last known (`auth` keeps it current). */
  get user(): UserRow {
    return this.#user;
  }

  get userId(): number {
    return this.#user.id;
  }

  /** The login session (refresh-token family) of the token the socket lives on. */
  get loginSessionId(): string | null {
    return this.#token.sessionId;
  }

  send(message: ControllerServerMessage): void {
    this.connection.send(message);
  }

  close(code: number, reason: string): void {
    this.connection.close(code, reason);
  }

  revoke(revocation: Revocation): void {
    this.handlers.onRevoked(this, revocation);
  }

  drive(throttle: number, steer: number): void {
    this.handlers.onDrive(this, throttle, steer);
  }

  ping(timestamp: number | undefined): void {
    this.send({ type: 'controller-pong', ...(timestamp === undefined ? {} : { timestamp }) });
  }

  /** A newer access token: the socket lives on, or closes when it is refused. */
  async auth(token: string): Promise<void> {
    const user = await this.#token.renew(token, this.access.check);
    if (!user) {
      this.close(SOCKET_CLOSE_CODES.tokenExpired, 'access token refused');
      return;
    }
    this.#user = user;
    this.send({ type: 'auth_ok', expiresAt: this.#token.expiresAt.toISOString() });
  }
}
