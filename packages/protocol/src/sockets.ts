/**
 * What every socket (/rcsocket, /api/race-ws, /janus) shares: its close codes, the one error
 * message, the one list of reasons a member is disconnected — so a reason the server sends
 * always has a translated text in the web app (`control.forceDisconnect.<reason>`) — and the
 * protocol-version handshake of the car agent and of the browser (tldraw's shape). No zod here:
 * the web app's first page reads these constants, and a module is bundled whole into one chunk —
 * the messages' schemas are in socket-messages.ts.
 */
/**
 * Why the server ended a member's driving session or sockets: sent on the event socket as
 * `car_session_ended {reason}` (a driving session; browser protocol 1: `force_disconnect`) or
 * `force_disconnect {reason}` (every socket of the member closes), and as the close reason of the
 * control socket. The driving-session reasons
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

/** Why the server refused a client's protocol version (a car agent's or a browser's). */
export const INCOMPATIBLE_REASONS = ['client_too_old', 'server_too_old'] as const;
export type IncompatibleReason = (typeof INCOMPATIBLE_REASONS)[number];

/** The protocol versions a server accepts, oldest and newest. */
export interface SupportedVersions {
  min: number;
  max: number;
}

/** Why a server accepting `supported` refuses `version`, or null when it speaks it. */
export function incompatibility(version: number, supported: SupportedVersions): IncompatibleReason | null {
  if (version < supported.min) return 'client_too_old';
  if (version > supported.max) return 'server_too_old';
  return null;
}

/**
 * Bumped when the browser sockets' protocol (control and event) changes incompatibly.
 * 2: a driving session's end is `car_session_ended {reason}` on the event socket, which stays
 * open (version 1 pages are still sent `force_disconnect {reason}` for it, the name they know;
 * `force_disconnect` now only comes before the server closes every socket of a member).
 */
export const BROWSER_PROTOCOL_VERSION = 2;
/**
 * The oldest browser protocol the server still accepts: a page stays open across a deployment,
 * so a new version may keep the old one for a while. A socket that never says `hello` (a page
 * built before the handshake) is served as version 1.
 */
export const MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION = 1;

/** WebSocket close codes the server uses on its sockets (4000–4999: ours). */
export const SOCKET_CLOSE_CODES = {
  /** Too many messages per second (RFC 6455 policy violation). */
  policy: 1008,
  /** A newer connection for the same car (or the same controller) replaced this one. */
  replaced: 4000,
  /** The driving session ended (expired, kicked, car deleted, banned). */
  sessionEnded: 4001,
  /** The client's protocol version (a car agent's or a browser's) is outside the supported range. */
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
