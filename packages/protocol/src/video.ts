/**
 * Live video (spec §2 "Control page", §7 "Video"; docs/video.md): how a car is told where to send its
 * RTP, what the control page learns about a car's stream, and the ICE servers of the browser.
 */
import { z } from 'zod';

/** Codecs a car can stream in; the mountpoint is created for one of them. */
export const VIDEO_CODECS = ['h264'] as const;
export const VideoCodec = z.enum(VIDEO_CODECS);
export type VideoCodec = z.infer<typeof VideoCodec>;

/** The control page's video settings (spec §2): volume 0–1 in steps of 0.05, starting muted. */
export const VIDEO_PLAYER = {
  volume: { min: 0, max: 1, step: 0.05, initial: 0 },
  /** Waiting after a dropped stream before watching again (doubles up to the max). */
  retryInitialMs: 1_000,
  retryMaxMs: 10_000,
  /** No decoded frame for this long while watching counts as a dropped stream. */
  stallMs: 4_000,
} as const;

/** The SRTP suite of the cars' video (video-uplink/srtp.ts): what Janus calls `srtpsuite: 80`. */
export const SRTP_SUITE = 'AES_CM_128_HMAC_SHA1_80';

/** Same-origin path of the Janus signalling WebSocket (subprotocol `janus-protocol`). */
export const JANUS_PATH = '/janus';
export const JANUS_SUBPROTOCOL = 'janus-protocol';

/**
 * What a member learns about a car's video. `pin` opens the car's mountpoint: only its current
 * driver and admins get it (null for everyone else, and when video is unavailable).
 */
export const CarVideo = z.object({
  /** False when the server runs without Janus: the control page says video is unavailable. */
  available: z.boolean(),
  pin: z.string().nullable(),
});
export type CarVideo = z.infer<typeof CarVideo>;

/** One RTCIceServer; TURN entries carry short-lived credentials. */
export const IceServer = z.object({
  urls: z.array(z.string()).min(1),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof IceServer>;

export const IceServersResponse = z.object({ iceServers: z.array(IceServer) });
export type IceServersResponse = z.infer<typeof IceServersResponse>;
