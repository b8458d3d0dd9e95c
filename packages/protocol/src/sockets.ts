/**
 * What every socket (/rcsocket, /api/race-ws, /janus) shares: its close codes, the one error
 * message, and the one list of reasons a member is disconnected — so a reason the server sends
 * always has a translated text in the web app (`control.forceDisconnect.<reason>`).
 */
import { z } from 'zod';

/**
 * Why the server ended a member's driving session or sockets: sent as `force_disconnect {reason}`
 * on the event socket and as the close reason of the control socket. The driving-session reasons
 * (CAR_SESSION_END_REASONS) and the sessions-revoked reasons of the domain events are subsets.
 */
export const DISCONNECT_REASONS = [
  'session_expired',
  'kicked',
  'car_deleted',
  'banned',
  'account_deleted',
  'password_changed',
  'logout_all',
  'session_revoked',
  'race_ended',
] as const;
export type DisconnectReason = (typeof DISCONNECT_REASONS)[number];

/**
 * The one error message of every JSON socket, shaped like the REST error body: `errorKey` is an
 * ERROR_KEYS i18n key, `error` an English text for logs.
 */
export const SocketErrorMessage = z.object({
  type: z.literal('error'),
  error: z.string(),
  errorKey: z.string(),
});
export type SocketErrorMessage = z.infer<typeof SocketErrorMessage>;

/** WebSocket close codes the server uses on its sockets (4000–4999: ours). */
export const SOCKET_CLOSE_CODES = {
  /** Too many messages per second (RFC 6455 policy violation). */
  policy: 1008,
  /** A newer connection for the same car (or the same controller) replaced this one. */
  replaced: 4000,
  /** The driving session ended (expired, kicked, car deleted, banned). */
  sessionEnded: 4001,
  /** The car agent's protocol version is outside the supported range. */
  incompatible: 4002,
  /** The car's secret was rotated or the car was deleted. */
  carRevoked: 4003,
  /** The member's sessions were revoked (ban, deletion, password change). */
  forceDisconnect: 4004,
  /** The access token that opened (or last re-authenticated) the socket expired. */
  tokenExpired: 4005,
  /** The member's role changed (an admin demoted): /janus closes, reconnect to get the new rights. */
  roleChanged: 4006,
  /** The member's session ended (log-out): this socket belonged to it. */
  sessionRevoked: 4007,
} as const;
