/**
 * Check 8: the uplink's loss and round trip. The server echoes nothing on the drive channel (it
 * only sends there), so the doctor measures on the car socket with WebSocket pings, which every
 * WebSocket server answers: 10 a second for 10 s (3 s with --quick), each carrying its number. A
 * pong later than a second counts as lost: on TCP a lost segment shows as a late answer, and a
 * drive that late is as good as lost to the driver.
 */
import type { DoctorSocket } from './car-socket.js';
import { type CheckResult, uplinkVerdict } from './format.js';

const PINGS_PER_SECOND = 10;
const LATE_MS = 1_000;

export async function checkUplink(socket: DoctorSocket, durationMs: number): Promise<CheckResult> {
  const sentAt = new Map<number, number>();
  const roundTrips: number[] = [];
  const onPong = (data: Buffer) => {
    if (data.length !== 4) return;
    const at = sentAt.get(data.readUInt32BE(0));
    if (at === undefined) return;
    const ms = performance.now() - at;
    if (ms <= LATE_MS) roundTrips.push(ms);
    sentAt.delete(data.readUInt32BE(0));
  };
  socket.ws.on('pong', onPong);
  const count = Math.max(1, Math.round((durationMs / 1000) * PINGS_PER_SECOND));
  try {
    for (let n = 0; n < count && socket.open; n++) {
      const payload = Buffer.alloc(4);
      payload.writeUInt32BE(n, 0);
      sentAt.set(n, performance.now());
      socket.ws.ping(payload);
      await new Promise((resolve) => setTimeout(resolve, 1000 / PINGS_PER_SECOND));
    }
    await new Promise((resolve) => setTimeout(resolve, LATE_MS));
  } finally {
    socket.ws.off('pong', onPong);
  }
  if (!socket.open) return socket.failure();
  return uplinkVerdict(count, roundTrips, 'WebSocket pings on the car socket');
}
