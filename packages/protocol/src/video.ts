/** Live video: the ICE servers the browser's WebRTC connection to Janus uses (VIDEO.md "TURN"). */
import { z } from 'zod';

/** One RTCIceServer; TURN entries carry short-lived credentials. */
export const IceServer = z.object({
  urls: z.array(z.string()).min(1),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof IceServer>;

export const IceServersResponse = z.object({ iceServers: z.array(IceServer) });
export type IceServersResponse = z.infer<typeof IceServersResponse>;
