/**
 * One driver's control socket. The kit (sockets/) pings it every CONTROL_LIMITS.controllerPingMs
 * and drops it when nothing (message or pong) was heard for CONTROL_LIMITS.controllerSilenceMs:
 * the relay then stops the car. It lives as long as its access token, renewed with
 * `auth {token}` (sockets/socket-token.ts). Car settings are saved over REST only.
 *
 * Drives may also come over the link's drive channel (drive-channel.ts, issue 27), signalled on
 * this socket: they go through the same checks (the kit's `receive`, so they count as hearing
 * from the driver too) and the same relay path, and both paths share one sequence — a drive
 * whose `seq` is not above the last one applied is dropped, so a late packet on one path never
 * overrides a newer command that took the other. The channel closes with the socket.
 */
import {
  type ControllerServerMessage,
  DRIVE_CHANNEL,
  DriveChannelMessage,
  ERROR_KEYS,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import type { Clock } from '../../clock.js';
import type { AccessTokenClaims } from '../../http/authenticate.js';
import { HttpError } from '../../http/errors.js';
import type { UserRow } from '../../kernel/users.repo.js';
import type { LimitWindow } from '../../limit-window.js';
import type { MemberSocket, Revocation } from '../../sockets/member-sockets.js';
import { messageTable } from '../../sockets/message-table.js';
import type { SocketConnection } from '../../sockets/socket-connection.js';
import { SocketToken, type TokenCheck } from '../../sockets/socket-token.js';
import type { DriveChannelConfig } from './control.config.js';
import { DriveChannel, type RemoteCandidate } from './drive-channel.js';
import { QUICK_DRIVE } from './drive-text.js';

/** What the drive channel may carry: drives, each acknowledged on the channel. */
const DRIVE_CHANNEL_MESSAGES = messageTable<ControllerLink, DriveChannelMessage>(
  DriveChannelMessage,
  { drive: (link, { throttle, steer, seq }) => link.driveOverChannel(throttle, steer, seq) },
  QUICK_DRIVE,
);

/** DRIVE_CHANNEL=off. The page knows the key: it offers no more on this socket. */
const driveChannelOff = () =>
  new HttpError(404, 'This server has no drive channel: drive over this socket', ERROR_KEYS.driveChannelOff);

/** Who opened the controller socket, how to check them again later, and the server's settings for it. */
export interface ControllerAccess {
  /** The member as the upgrade found them. */
  user: UserRow;
  /** The access token the socket was opened with. */
  claims: AccessTokenClaims;
  /** Verifies the token of an `auth` message. */
  check: TokenCheck;
  /** The server's clock: the socket closes when it reaches the token's expiry. */
  clock: Clock;
  /** DRIVE_CHANNEL and its network settings. */
  driveChannel: DriveChannelConfig;
  /** The drive channel offers' budget (DRIVE_CHANNEL.offersPerMinute), shared by every socket and instance. */
  driveChannelOffers: LimitWindow<string>;
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
  /** The highest drive number applied (either path); -1 before the first numbered drive. */
  #lastSeq = -1;
  /** Made by the first `rtc_offer`. */
  #channel: DriveChannel | null = null;

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
      this.#channel?.close();
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

  /**
   * The server ends the socket (replaced, session over, revoked…): the drive channel goes now,
   * not when the browser completes the close — a client that never reads would otherwise keep
   * its peer, and its connectivity checks, for the close handshake's 30 s.
   */
  close(code: number, reason: string): void {
    this.#channel?.close();
    this.connection.close(code, reason);
  }

  revoke(revocation: Revocation): void {
    this.handlers.onRevoked(this, revocation);
  }

  /** A drive from either path; one numbered at or below the last applied is a late packet, dropped. */
  drive(throttle: number, steer: number, seq?: number): void {
    if (seq !== undefined) {
      if (seq <= this.#lastSeq) return;
      this.#lastSeq = seq;
    }
    this.handlers.onDrive(this, throttle, steer);
  }

  /** A drive that came over the drive channel: applied like any other, and acknowledged there. */
  driveOverChannel(throttle: number, steer: number, seq: number): void {
    this.drive(throttle, steer, seq);
    this.#channel?.send({ type: 'drive-ack', seq });
  }

  /**
   * The browser offers a drive channel (`rtc_offer`); it replaces the link's previous one. With
   * DRIVE_CHANNEL=off every offer is refused with errors.driveChannelOff, which tells the page to
   * drive over this socket only (werift never loads, no UDP port opens).
   */
  async offerDriveChannel(sdp: string): Promise<void> {
    const { enabled, ...network } = this.access.driveChannel;
    if (!enabled) throw driveChannelOff();
    this.#channel ??= new DriveChannel({
      clock: this.access.clock,
      log: this.connection.options.log,
      network,
      owner: {
        keys: [`member:${this.userId}`, `session:${this.sessionId}`],
        offers: this.access.driveChannelOffers,
      },
      label: DRIVE_CHANNEL.label,
      remoteCandidates: true,
      answer: (answer) => this.send({ type: 'rtc_answer', sdp: answer }),
      onMessage: (data) => this.connection.receive(data, DRIVE_CHANNEL_MESSAGES, this),
    });
    await this.#channel.offer(sdp);
  }

  /** One of the browser's ICE candidates for its last offer (`rtc_candidate`). */
  driveChannelCandidate(candidate: RemoteCandidate): void {
    this.#channel?.candidate(candidate);
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
