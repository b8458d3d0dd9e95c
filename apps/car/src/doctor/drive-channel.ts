/**
 * Check 4: the drive channel opens. The agent's own CarChannel offers over the doctor's car socket,
 * so the check goes through the same DTLS/ICE path, NAT and firewall as the agent's channel; it
 * passes with the time the channel took to open, and fails with CarChannel's last reason.
 */

import type { ServerCarMessage } from '@telerace/protocol';
import { CAR_CHANNEL, ERROR_KEYS } from '@telerace/protocol';
import { CarChannel } from '../channel.js';
import type { DoctorSocket } from './car-socket.js';
import { type CheckResult, fail, pass } from './format.js';

const FIX =
  "UDP to the server's ports blocked? open DRIVE_CHANNEL_UDP_PORTS (outbound from the car, inbound on the server), check DRIVE_CHANNEL_PUBLIC_IP on the server; drives still go by the socket meanwhile";

/** The server's UDP candidates in its answer, `address:port` (what the car's checks go to). */
export function answerAddresses(sdp: string): string[] {
  const found = new Set<string>();
  for (const line of sdp.split(/\r?\n/)) {
    const parts = line.startsWith('a=candidate:') ? line.split(' ') : [];
    if (parts[2]?.toLowerCase() === 'udp' && parts[4] && parts[5]) found.add(`${parts[4]}:${parts[5]}`);
  }
  return [...found];
}

export async function checkDriveChannel(
  socket: DoctorSocket,
  openTimeoutMs: number = CAR_CHANNEL.openTimeoutMs,
): Promise<CheckResult> {
  let lastReason: string | undefined;
  let serverAddresses: string[] = [];
  let refusedOff = false;
  const channel = new CarChannel({
    offer: (sdp) => socket.send({ type: 'rtc_offer', sdp }),
    onMessage: () => {},
    log: (line) => {
      const reason = /\((.*)\)/.exec(line)?.[1];
      if (reason) lastReason = reason;
      else if (!line.startsWith('drive channel open')) lastReason = line;
    },
    openTimeoutMs,
  });
  const onMessage = (message: ServerCarMessage) => {
    if (message.type === 'rtc_answer') {
      serverAddresses = answerAddresses(message.sdp);
      void channel.answer(message.sdp);
    }
    if (message.type === 'error') {
      if (message.errorKey === ERROR_KEYS.driveChannelOff) refusedOff = true;
      else channel.refused(message.errorKey ?? message.error);
    }
  };
  socket.on('message', onMessage);
  const started = performance.now();
  channel.start();
  try {
    const deadline = started + openTimeoutMs;
    while (channel.state !== 'open' && performance.now() < deadline && socket.open && !refusedOff) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ms = Math.round(performance.now() - started);
    if (channel.state === 'open') return pass(`open in ${ms} ms (WebRTC DataChannel, UDP)`);
    if (refusedOff)
      return fail(
        'the server refused the offer: its drive channel is off',
        'DRIVE_CHANNEL=on on the server, or run the car with --drive-channel off',
      );
    if (!socket.open) return socket.failure();
    const tried = serverAddresses.length
      ? `; UDP to ${serverAddresses.join(', ')} unanswered`
      : '; no answer to the offer';
    const reason = lastReason && !lastReason.startsWith('not open within') ? ` (${lastReason})` : '';
    return fail(`not open within ${openTimeoutMs / 1000} s${tried}${reason}`, FIX);
  } finally {
    socket.off('message', onMessage);
    channel.stop();
  }
}
