/**
 * Cars and driving (spec §3 Car, §7 /cars*, /admin/cars*, /admin/settings, control socket) and
 * the car protocol between the server and the car agent (docs/protocol.md "Car protocol versions").
 */
import { z } from 'zod';
import { CAR_CONFIG_LIMITS, CAR_SESSION_DEFAULT_MINUTES } from './constants.js';
import { Id, IdParams } from './ids.js';
import { ChatAnnouncementSettings } from './integrations.js';
import { LiveLeaderboardRow, RACE_SETTINGS_LIMITS, RaceState } from './races.js';
import { BrowserHello, IncompatibleMessage, SocketErrorMessage } from './socket-messages.js';
import { DISCONNECT_REASONS } from './sockets.js';
import { CarVideo, SRTP_SUITE, VideoCodec } from './video.js';

/** Bumped when the car protocol changes incompatibly. */
export const CAR_PROTOCOL_VERSION = 1;
/**
 * The oldest car protocol the server still accepts: cars in the field lag behind the server, so
 * a new version keeps the old one supported for a while (tldraw's shape). The server accepts
 * `[MIN_SUPPORTED_CAR_PROTOCOL_VERSION, CAR_PROTOCOL_VERSION]` and answers anything else with
 * `incompatible {reason}`.
 */
export const MIN_SUPPORTED_CAR_PROTOCOL_VERSION = 1;

/** Safety and transport limits of the control path (docs/car.md "Safety"). */
export const CONTROL_LIMITS = {
  /** The car goes to neutral when it hears nothing from the server for this long. */
  carDeadmanMs: 500,
  /** The server repeats the last drive to the car when it sent it nothing for this long (heartbeat). */
  driveHeartbeatMs: 100,
  /** The server pings each controller that sent no message for this long… */
  controllerPingMs: 500,
  /** …and treats one silent for this long as gone (neutral to the car). */
  controllerSilenceMs: 1_500,
  /** A socket sending more messages than this per second is closed. */
  maxMessagesPerSecond: 100,
  /** Largest accepted WebSocket message, in bytes. */
  maxPayloadBytes: 4_096,
  /** Event sockets (/api/race-ws) one member may hold at once (a few tabs); more get HTTP 429. */
  eventSocketsPerMember: 5,
  /**
   * Race commands (`join_lobby`, `toggle_ready`, `ping_update`) one member may send within
   * `eventCommandWindowMs`, all their event sockets together (on every instance with REDIS_URL):
   * one more is not run and is answered `error` (errors.tooManyRequests); the socket stays open.
   */
  eventCommandsPerMember: 20,
  /** The window of `eventCommandsPerMember`, in ms (whole seconds: the limiter counts in them). */
  eventCommandWindowMs: 2_000,
  /**
   * A race state whose only changes are participants' ready flags and pings goes out at most once
   * per this many ms (the latest state wins, and it leaves at most this long after the change);
   * any other change (status, countdown, participants, race end, raffle) goes out at once.
   */
  raceStateIntervalMs: 100,
  /** Controller sockets (/rcsocket) one member may hold at once, like /janus's 4. */
  controllerSocketsPerMember: 4,
  /**
   * Bytes the server may hold unsent for one event or control socket; a client that reads slower
   * than that is dropped (terminated: no close frame could reach it) instead of growing the
   * server's memory.
   */
  maxBufferedBytes: 1_048_576,
} as const;

/** Control codes: short, uppercase, without look-alike characters (no 0/O, 1/I/L). */
export const CONTROL_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CONTROL_CODE_LENGTH = 6;
export const ControlCode = z.string().trim().toUpperCase().min(1, 'A control code is required.').max(16);

const speedPercent = z
  .number()
  .int()
  .min(CAR_CONFIG_LIMITS.speedPercent.min)
  .max(CAR_CONFIG_LIMITS.speedPercent.max);
const trim = z.number().int().min(CAR_CONFIG_LIMITS.trim.min).max(CAR_CONFIG_LIMITS.trim.max);

/** The admin's limits for a car, applied on the car itself. */
export const CarConfig = z.object({
  forwardSpeedPercent: speedPercent,
  backwardSpeedPercent: speedPercent,
  trimValue: trim,
});
export type CarConfig = z.infer<typeof CarConfig>;

export const DEFAULT_CAR_CONFIG: CarConfig = {
  forwardSpeedPercent: CAR_CONFIG_LIMITS.speedPercent.default,
  backwardSpeedPercent: CAR_CONFIG_LIMITS.speedPercent.default,
  trimValue: CAR_CONFIG_LIMITS.trim.default,
};

export const CarStatus = z.enum(['online', 'offline']);

/** A car as members see it (spec §3). */
export const Car = z.object({
  id: z.number().int(),
  name: z.string(),
  image_url: z.string().nullable(),
  status: CarStatus,
  stream_id: z.number().int(),
  current_user_id: z.number().int().nullable(),
  /** The current driver's username, or null when the car is available. */
  username: z.string().nullable(),
  config_forward_speed: z.number().int(),
  config_backward_speed: z.number().int(),
  config_steering_trim: z.number().int(),
  /** End of the current driving session (ISO), null when available. */
  session_ends_at: z.string().nullable(),
  /** The car's live video (one car's status, connect, admin views; not in the list). */
  video: CarVideo.optional(),
});
export type Car = z.infer<typeof Car>;

/**
 * The car's drive link as the car sees it (issue 42; Car Status, /metrics). `channel`: its drive
 * channel is open (commands come by the channel and the socket; otherwise by the socket alone).
 * `rttMs`: the median round trip of its link pings over the last minute, by the channel when open.
 * `lossPercent`: over the last minute, the share of the server's commands and of its pings that
 * did not come back by the channel (only while it is open). `deadmanTrips`: times the car stopped
 * on its own deadman today (the car's clock).
 */
export const CarLinkStats = z.object({
  channel: z.boolean(),
  rttMs: z.number().min(0).max(60_000).optional(),
  lossPercent: z.number().min(0).max(100).optional(),
  deadmanTrips: z.number().int().min(0).max(1_000_000),
});
export type CarLinkStats = z.infer<typeof CarLinkStats>;

/** The video a car sends now (issue 43): the picture, and the bitrate it adapts to its uplink. */
export const CarVideoQuality = z.object({
  width: z.number().int().min(16).max(4096),
  height: z.number().int().min(16).max(4096),
  framerate: z.number().int().min(1).max(120),
  /** kbit/s the encoder aims at now: lower than `maxBitrate` while the uplink is narrow. */
  bitrate: z.number().int().min(1).max(50_000),
  /** kbit/s the car is configured for. */
  maxBitrate: z.number().int().min(1).max(50_000),
  /** Of the video packets lately, % lost on the uplink before repair, and % never repaired. */
  lossPercent: z.number().min(0).max(100).optional(),
  unrepairedPercent: z.number().min(0).max(100).optional(),
});
export type CarVideoQuality = z.infer<typeof CarVideoQuality>;

/** Below this share of its configured bitrate, a car has lowered its video for a narrow uplink. */
export const VIDEO_LOWERED_BELOW = 0.9;

export const isVideoLowered = (video: CarVideoQuality | undefined): video is CarVideoQuality =>
  video !== undefined && video.bitrate < VIDEO_LOWERED_BELOW * video.maxBitrate;

export const Telemetry = z.object({
  battery: z.number().min(0).max(100).optional(),
  rssi: z.number().min(-150).max(0).optional(),
  /** Metres per second, signed (negative when reversing). */
  speed: z.number().min(-100).max(100).optional(),
  fps: z.number().min(0).max(240).optional(),
  /** Kilobits per second of video the car sends lately. */
  kbps: z.number().min(0).max(1_000_000).optional(),
  video: CarVideoQuality.optional(),
  link: CarLinkStats.optional(),
});
export type Telemetry = z.infer<typeof Telemetry>;

/** What admins see of a car (Car Status tab). */
export const AdminCar = Car.extend({
  control_code: z.string().nullable(),
  /** When the current code stops opening the car (ISO); null without a code. */
  control_code_expires_at: z.string().nullable(),
  last_telemetry: Telemetry.extend({ at: z.string() }).nullable(),
  /**
   * What the lap counter calls this car: a ZRound/RiCino transponder id, or a RotorHazard pilot
   * id; null when none is set (the `car` lap counter needs none).
   */
  lap_counter_id: z.string().nullable(),
});
export type AdminCar = z.infer<typeof AdminCar>;

const ImageUrl = z
  .string()
  .trim()
  .max(2048)
  .regex(/^(\/(?!\/)|https?:\/\/)/, 'must start with / or http(s)://');

export const CarIdParams = IdParams;
export const CreateCarRequest = z.object({
  name: z.string().trim().min(1).max(60),
  image_url: ImageUrl.nullable(),
});
/** The car secret is shown once; only its hash is stored. */
export const CreateCarResponse = z.object({ car: AdminCar, secret: z.string() });
export const RotateSecretResponse = z.object({ secret: z.string() });
export const GenerateCodeResponse = z.object({ code: z.string() });
export const ConnectRequest = z.object({ code: ControlCode });
export const ConnectResponse = z.object({ ok: z.literal(true), car: Car, controlToken: z.string() });
export const CarCommandRequest = z.object({ command: z.enum(['reboot', 'shutdown']) });
/** PUT /api/admin/cars/{id}/lap-counter-id: a transponder or pilot id, or null to clear it. */
export const LapCounterIdRequest = z.object({
  lap_counter_id: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only')
    .nullable(),
});

const settingInt = (limits: { min: number; max: number }) => z.number().int().min(limits.min).max(limits.max);

/** Run-time settings (GET /api/admin/settings); PATCH takes any subset (AdminSettingsPatch). */
export const AdminSettings = z.object({
  car_session_duration_minutes: z.number().int().min(1).max(240),
  race_countdown_seconds: settingInt(RACE_SETTINGS_LIMITS.countdownSeconds),
  race_length_minutes: settingInt(RACE_SETTINGS_LIMITS.raceLengthMinutes),
  min_lap_time_seconds: settingInt(RACE_SETTINGS_LIMITS.minLapSeconds),
  ...ChatAnnouncementSettings.shape,
});
export type AdminSettings = z.infer<typeof AdminSettings>;
/** What the settings are until an admin saves them. */
export const DEFAULT_ADMIN_SETTINGS: AdminSettings = {
  car_session_duration_minutes: CAR_SESSION_DEFAULT_MINUTES,
  race_countdown_seconds: RACE_SETTINGS_LIMITS.countdownSeconds.default,
  race_length_minutes: RACE_SETTINGS_LIMITS.raceLengthMinutes.default,
  min_lap_time_seconds: RACE_SETTINGS_LIMITS.minLapSeconds.default,
  chat_announce_raffle_opened: true,
  chat_announce_raffle_winners: true,
  chat_announce_race_podium: true,
};
export const AdminSettingsPatch = AdminSettings.partial().refine(
  (patch) => Object.keys(patch).length > 0,
  'at least one setting is required',
);
export type AdminSettingsPatch = z.infer<typeof AdminSettingsPatch>;

const unit = z.number().min(-1).max(1);

/**
 * The drive channel (issue 27): a WebRTC DataChannel from the driver's browser to the server for
 * drive commands only, beside the control socket, which signals it and carries everything else.
 * Unordered and never retransmitted: a lost drive is not worth waiting for, since a newer one
 * follows within `repeatMs`; on the socket's TCP one lost segment holds every later command back.
 */
export const DRIVE_CHANNEL = {
  /** The DataChannel's label; a channel with another label is closed. */
  label: 'drive',
  /** RTCDataChannelInit of the channel the browser creates. */
  options: { ordered: false, maxRetransmits: 0 },
  /** While the channel is open the browser sends its current drive this often, so a lost one is replaced. */
  repeatMs: 100,
  /**
   * The server acknowledges each drive on the channel (`drive-ack`); with no acknowledgement for
   * this long the browser drives over the control socket again (within a second of a failure).
   */
  ackTimeoutMs: 500,
  /** An offer not answered and open within this long is given up (and tried again later). */
  openTimeoutMs: 10_000,
  /** After a channel closes or fails the browser offers again after this delay, doubling… */
  retryInitialMs: 1_000,
  /** …up to this one. */
  retryMaxMs: 30_000,
  /**
   * Offers closer together than this on one control socket are refused (each one costs the
   * server UDP ports); half the page's first retry delay, so network jitter never trips it.
   */
  minOfferIntervalMs: 500,
  /**
   * Offers a member may make per minute, all their sockets and instances together, and as many
   * per car session (errors.driveChannelBusy past it): a page that retries with its backoff
   * (1, 2, 4… s) and reconnects its socket now and then stays well under it, while reconnecting
   * sockets no longer buys a member a fresh budget (each offer sends the server's checks out).
   */
  offersPerMinute: 12,
  /**
   * Remote ICE candidates the server considers per offer, those written in the offer's SDP and
   * trickled ones together; later ones are ignored.
   */
  maxCandidates: 16,
} as const;

/**
 * A drive's number in the browser's sequence, shared by the control socket and the drive channel:
 * the server applies a drive only when its number is above the last one it applied, so a late
 * packet never overrides a newer command that took the other path.
 */
const DriveSeq = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A session description of the drive channel's negotiation (fits in one control-socket message). */
const Sdp = z.string().min(1).max(3_500);

/** Control socket, browser → server (spec §7). */
export const ControllerMessage = z.discriminatedUnion('type', [
  BrowserHello,
  /**
   * `seq` (pages since issue 27): a drive whose number is not above the last one applied on this
   * socket, whichever path it took, is dropped; a drive without one is always applied.
   */
  z.object({ type: z.literal('drive'), throttle: unit, steer: unit, seq: DriveSeq.optional() }),
  z.object({ type: z.literal('controller-ping'), timestamp: z.number().optional() }),
  /** A refreshed access token, so the socket outlives the token that opened it. */
  z.object({ type: z.literal('auth'), token: z.string().min(1).max(4096) }),
  /**
   * Opens the drive channel (the browser creates the DataChannel and offers): answered with
   * `rtc_answer`. A new offer replaces the socket's previous peer connection; one within
   * DRIVE_CHANNEL.minOfferIntervalMs of the last, or past the member's DRIVE_CHANNEL.offersPerMinute,
   * is refused (errors.driveChannelBusy: the page drives over the socket and offers again after its
   * backoff). An offer whose ICE credentials are not RFC 8839's (characters, lengths) is refused
   * (errors.validation). Candidates written in the SDP count like trickled ones. A server
   * without the drive channel (DRIVE_CHANNEL=off) refuses every offer (errors.driveChannelOff):
   * the page offers no more on that socket and drives over it.
   */
  z.object({ type: z.literal('rtc_offer'), sdp: Sdp }),
  /**
   * One of the browser's ICE candidates for the last offer (trickle). The server ignores the
   * browser's mDNS host candidates (`<uuid>.local`) and those past DRIVE_CHANNEL.maxCandidates,
   * and drops without an answer any it will not send to: not UDP, not an IP address, a port
   * below 1024, a private, loopback, link-local, multicast or otherwise special-purpose address
   * (unless the operator allows its network), or the server's own (docs/security.md "The drive
   * channel"). The browser's connectivity checks reach the server anyway.
   */
  z.object({
    type: z.literal('rtc_candidate'),
    candidate: z.string().max(512),
    sdpMid: z.string().max(32).nullable().optional(),
    sdpMLineIndex: z.number().int().min(0).max(15).nullable().optional(),
  }),
]);
export type ControllerMessage = z.infer<typeof ControllerMessage>;
export type RtcSignal = Extract<ControllerMessage, { type: 'rtc_offer' | 'rtc_candidate' }>;

/** Drive channel, browser → server: drives only, each with its number. */
export const DriveChannelMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('drive'), throttle: unit, steer: unit, seq: DriveSeq }),
]);
export type DriveChannelMessage = z.infer<typeof DriveChannelMessage>;

/** Drive channel, server → browser. */
export const DriveChannelServerMessage = z.discriminatedUnion('type', [
  /** The drive `seq` arrived (applied or too old): the channel works. */
  z.object({ type: z.literal('drive-ack'), seq: DriveSeq }),
]);
export type DriveChannelServerMessage = z.infer<typeof DriveChannelServerMessage>;

/** Control socket, server → browser. */
export const ControllerServerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('controller-pong'), timestamp: z.number().optional() }),
  z.object({ type: z.literal('car-status'), online: z.boolean() }),
  z.object({ type: z.literal('telemetry'), telemetry: Telemetry }),
  SocketErrorMessage,
  /** The `auth` message was accepted: the socket now lives until `expiresAt` (ISO time). */
  z.object({ type: z.literal('auth_ok'), expiresAt: z.string() }),
  IncompatibleMessage,
  /** The server's answer to `rtc_offer`, with all its ICE candidates (the server does not trickle). */
  z.object({ type: z.literal('rtc_answer'), sdp: Sdp }),
]);
export type ControllerServerMessage = z.infer<typeof ControllerServerMessage>;

/**
 * The car's drive channel (issue 42): a DataChannel the car agent offers over its car socket, so
 * that drives reach a car on venue Wi-Fi or 4G without TCP's stalls (one lost segment held every
 * later drive back past the car's 500 ms deadman). Unordered, never retransmitted; the server
 * sends every drive and stop on the channel and on the socket, and the car applies a command only
 * when its `seq` is above the last one it applied, whichever path brought it.
 */
export const CAR_CHANNEL = {
  /** The DataChannel's label; a channel with another label is closed. */
  label: 'car-drive',
  /** RTCDataChannelInit of the channel the agent creates. */
  options: { ordered: false, maxRetransmits: 0 },
  /** An offer not answered and open within this long is given up (and tried again later). */
  openTimeoutMs: 10_000,
  /** After a channel closes or fails the agent offers again after this delay, doubling… */
  retryInitialMs: 1_000,
  /** …up to this one. */
  retryMaxMs: 30_000,
  /** Offers a car may make per minute (each one costs the server UDP ports); more are refused. */
  offersPerMinute: 12,
} as const;

/** The car measures its link (issue 42): the server answers on the same path with `link-pong`. */
const LinkPing = z.object({
  type: z.literal('link-ping'),
  t: z.number().min(0).max(Number.MAX_SAFE_INTEGER),
});
const LinkPong = z.object({
  type: z.literal('link-pong'),
  t: z.number().min(0).max(Number.MAX_SAFE_INTEGER),
});

/** Car → server on the car's drive channel: its link pings only. */
export const CarChannelAgentMessage = z.discriminatedUnion('type', [LinkPing]);
export type CarChannelAgentMessage = z.infer<typeof CarChannelAgentMessage>;

/**
 * Server → car, on the car socket and on the car's drive channel. `seq` numbers drives and stops
 * in one sequence per car socket: a command whose number is not above the last one the car applied
 * (a late copy from the other path) is ignored. A `stop` without `seq` (a server older than the
 * channel) is always applied.
 */
export const CarChannelMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('drive'), throttle: unit, steer: unit, seq: z.number().int().nonnegative() }),
  z.object({ type: z.literal('stop'), seq: z.number().int().nonnegative().optional() }),
  /** The answer to the car's `link-ping`, on the path it came by: the car's round trip and loss. */
  LinkPong,
]);
export type CarChannelMessage = z.infer<typeof CarChannelMessage>;

/** Car agent → server. */
export const CarAgentMessage = z.discriminatedUnion('type', [
  /**
   * The agent's first message. `capabilities`: what it can do beyond driving; `passes`: it
   * reports its finish-line crossings (`pass`), so the `car` lap counter can count its laps (the
   * simulated drive does; a hardware drive without a lap sensor does not). An agent that says no
   * `capabilities` (older than them) is taken as one that reports no crossings (docs/races.md).
   */
  z.object({
    type: z.literal('hello'),
    protocolVersion: z.number().int(),
    agentVersion: z.string().max(40),
    capabilities: z.object({ passes: z.boolean().optional() }).optional(),
  }),
  z.object({ type: z.literal('telemetry'), ...Telemetry.shape }),
  /**
   * The car crossed its finish line at `at` (epoch ms, the car's clock): the `car` lap counter
   * (docs/races.md). Sent by the sim backend and by cars with a lap sensor.
   */
  z.object({ type: z.literal('pass'), at: z.number().int().positive() }),
  /**
   * Opens the car's drive channel (issue 42, docs/car.md "The drive channel"): the agent creates
   * the DataChannel (CAR_CHANNEL) and offers; the server answers with `rtc_answer`. Only after a
   * `welcome` that says `driveChannel: true`. The agent does not trickle (its candidates are in the
   * SDP, and the server does not send to them: the car's checks reach the server, behind any NAT).
   * A new offer replaces the last; offers come at most CAR_CHANNEL.offersPerMinute per car.
   */
  z.object({ type: z.literal('rtc_offer'), sdp: Sdp }),
  /** Every second, to a server whose welcome says `driveChannel` (either way): answered with `link-pong`. */
  LinkPing,
]);
export type CarAgentMessage = z.infer<typeof CarAgentMessage>;

/** Server → car agent. */
export const ServerCarMessage = z.discriminatedUnion('type', [
  /** `driveChannel`: this server answers the agent's `rtc_offer` (issue 42); absent: it does not. */
  z.object({ type: z.literal('welcome'), config: CarConfig, driveChannel: z.boolean().optional() }),
  IncompatibleMessage,
  ...CarChannelMessage.options,
  z.object({ type: z.literal('config'), settings: CarConfig }),
  z.object({ type: z.literal('command'), command: z.enum(['reboot', 'shutdown']) }),
  /**
   * Where to send the camera's RTP (the car's Janus mountpoint): sent when a driving session
   * starts (or the car connects during one), and again when the mountpoint's port changes.
   */
  z.object({
    type: z.literal('video'),
    host: z.string().min(1).max(255),
    port: z.number().int().min(1).max(65_535),
    codec: VideoCodec,
    /**
     * The SRTP master key and salt for this mountpoint (base64 of 30 bytes): every packet is
     * encrypted and authenticated with it, and anything else sent to the port is dropped. A new
     * one whenever the mountpoint is made again (docs/video.md "The car's uplink").
     */
    srtp: z.object({
      suite: z.literal(SRTP_SUITE),
      key: z.string().regex(/^[A-Za-z0-9+/]{40}$/),
    }),
  }),
  /** Nobody drives the car any more: stop streaming (saves the car's CPU and data). */
  z.object({ type: z.literal('video-stop') }),
  SocketErrorMessage,
  /** The server's answer to the agent's `rtc_offer`, with all its ICE candidates. */
  z.object({ type: z.literal('rtc_answer'), sdp: Sdp }),
]);
export type ServerCarMessage = z.infer<typeof ServerCarMessage>;

/** Event socket /api/race-ws (spec §7 "Event channel"). */
export const EventClientMessage = z.discriminatedUnion('type', [
  BrowserHello,
  z.object({ type: z.literal('get_current_state') }),
  /** Join the race lobby with a car the member holds (idempotent). */
  z.object({ type: z.literal('join_lobby'), carId: Id }),
  z.object({ type: z.literal('toggle_ready') }),
  /** Leave the race lobby (a driver who only wants to drive): refused outside the lobby. */
  z.object({ type: z.literal('leave_lobby') }),
  z.object({ type: z.literal('ping'), timestamp: z.number() }),
  z.object({ type: z.literal('ping_update'), latency: z.number().min(0).max(60_000) }),
  /** A refreshed access token, so the socket outlives the token that opened it. */
  z.object({ type: z.literal('auth'), token: z.string().min(1).max(4096) }),
]);
export type EventClientMessage = z.infer<typeof EventClientMessage>;

/** Why a driving session ended (sent to the driver as `car_session_ended {reason}`). */
export const CAR_SESSION_END_REASONS = [
  'session_expired',
  'kicked',
  'car_deleted',
  'banned',
  'account_deleted',
  'race_ended',
] as const satisfies readonly (typeof DISCONNECT_REASONS)[number][];

export const EventServerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('pong'), timestamp: z.number() }),
  /** Before the server closes every socket of the member (a ban, a deletion, a log-out everywhere…). */
  z.object({ type: z.literal('force_disconnect'), reason: z.enum(DISCONNECT_REASONS) }),
  /** The member's driving session ended; this socket stays open (protocol 1 pages get `force_disconnect`). */
  z.object({ type: z.literal('car_session_ended'), reason: z.enum(CAR_SESSION_END_REASONS) }),
  z.object({ type: z.literal('race_state_update'), payload: RaceState }),
  z.object({ type: z.literal('live_leaderboard_update'), data: z.array(LiveLeaderboardRow) }),
  /** The join could not be taken now (results being written): retry in 2 s. */
  z.object({ type: z.literal('server_busy') }),
  /** The `auth` message was accepted: the socket now lives until `expiresAt` (ISO time). */
  z.object({ type: z.literal('auth_ok'), expiresAt: z.string() }),
  SocketErrorMessage,
  IncompatibleMessage,
]);
export type EventServerMessage = z.infer<typeof EventServerMessage>;

export type CarSessionEndReason = (typeof CAR_SESSION_END_REASONS)[number];

export const CarsResponse = z.array(Car);
export const AdminCarsResponse = z.array(AdminCar);
export const AdminCarResponse = z.object({ car: AdminCar });
