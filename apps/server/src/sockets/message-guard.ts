/**
 * The socket kit's guards: drop counters, a per-socket message-rate limit, and a JSON send that
 * drops a client that does not read, so no client can crash the server or grow its memory.
 */
import { CONTROL_LIMITS } from '@telerace/protocol';

/** How many messages each gateway dropped, by cause (read by tests and logs). */
export interface DropCounters {
  invalidJson: number;
  unknownType: number;
  invalidMessage: number;
  rateLimited: number;
  /** Sockets dropped because their unsent messages passed CONTROL_LIMITS.maxBufferedBytes. */
  slowReaders: number;
}

export const newDropCounters = (): DropCounters => ({
  invalidJson: 0,
  unknownType: 0,
  invalidMessage: 0,
  rateLimited: 0,
  slowReaders: 0,
});

/** More than `max` messages within one second (fixed window) → exceeded. */
export class MessageRateLimit {
  #windowStart = 0;
  #count = 0;

  constructor(readonly max: number = CONTROL_LIMITS.maxMessagesPerSecond) {}

  /** Counts one message; false once the limit is exceeded. */
  allow(now = Date.now()): boolean {
    if (now - this.#windowStart >= 1_000) {
      this.#windowStart = now;
      this.#count = 0;
    }
    this.#count += 1;
    return this.#count <= this.max;
  }
}

/** What sendJson needs of a socket (a `ws` WebSocket). */
export interface JsonSocket {
  readonly readyState: number;
  /** Bytes queued but not yet written to the network. */
  readonly bufferedAmount: number;
  send(data: string): void;
  send(data: Buffer, options: { binary: boolean }): void;
  terminate(): void;
}

/**
 * A JSON send that never throws on a socket that is closing, and drops a client that does not
 * read: once its unsent messages would pass CONTROL_LIMITS.maxBufferedBytes the socket is
 * terminated (counted in `dropped.slowReaders`) instead of growing the server's memory. No close
 * code could reach such a client anyway: the close frame would wait behind the unread backlog.
 * Returns whether the message was queued.
 */
export function sendJson(socket: JsonSocket, message: unknown, dropped?: DropCounters): boolean {
  const text = JSON.stringify(message);
  return sendText(socket, text, Buffer.byteLength(text), dropped);
}

/**
 * A message serialized once for many sockets (a broadcast): its text, and its UTF-8 bytes, which
 * every socket sends as they are (ws would otherwise encode the text again for each socket).
 */
export interface SerializedMessage {
  text: string;
  utf8: Buffer;
}

export function serialize(message: unknown): SerializedMessage {
  const text = JSON.stringify(message);
  return { text, utf8: Buffer.from(text, 'utf8') };
}

/** sendJson for an already serialized message: `data` is the text, or its UTF-8 bytes sent as a text frame. */
export function sendText(
  socket: JsonSocket,
  data: string | Buffer,
  bytes: number,
  dropped?: DropCounters,
): boolean {
  if (socket.readyState !== 1) return false;
  if (socket.bufferedAmount + bytes > CONTROL_LIMITS.maxBufferedBytes) {
    if (dropped) dropped.slowReaders += 1;
    socket.terminate();
    return false;
  }
  try {
    if (typeof data === 'string') socket.send(data);
    else socket.send(data, { binary: false });
    return true;
  } catch {
    // The close handler cleans up.
    return false;
  }
}
