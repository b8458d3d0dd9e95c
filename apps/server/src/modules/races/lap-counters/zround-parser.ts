/**
 * The ZRound "Free LapCounter" protocol (https://www.zround.com/wiki/doku.php/lapcounters:protocols:open),
 * which open decoders such as RiCino speak over a serial port or TCP. Every frame is ASCII text
 * between `%` and `&`; its first letter says what it is:
 *
 *   ZRound → decoder   `%C&` startup (over TCP the decoder need not answer), `%I&` race start
 *                      (the decoder sets its clock to zero), `%F&` race stopped.
 *   decoder → ZRound   `%A&` startup acknowledgement,
 *                      `%T<hex ms>&` the decoder's clock (variable length, for syncing clocks),
 *                      `%L<TX>[,]<hex ms>&` a pass: TX is the transponder in hexadecimal, two digits
 *                      when there is no comma, any length before a comma; the rest is the decoder's
 *                      race time in milliseconds, in hexadecimal, any length.
 *
 * This parser is pure: it is fed chunks as they arrive (frames may be split across chunks or share
 * one) and returns the frames it completed. Text outside frames is dropped; a malformed frame
 * becomes a `malformed` item (the adapter logs and skips it). A frame that never ends cannot grow
 * memory: past MAX_FRAME_LENGTH characters the partial frame is dropped and the parser waits for
 * the next `%`.
 */

/** Longer than any real frame (a transponder and a time of a few hex digits each). */
export const MAX_FRAME_LENGTH = 64;

export type ZroundFrame =
  /** A pass of transponder `transponder` (lower-case hex, no leading zeros) at decoder time `time` ms. */
  | { type: 'lap'; transponder: string; time: number }
  | { type: 'clock'; time: number }
  | { type: 'ack' }
  | { type: 'start' }
  | { type: 'stop' }
  | { type: 'startup' }
  | { type: 'malformed'; text: string };

const HEX = /^[0-9A-Fa-f]+$/;
/** More digits than this overflow a double's exact integers (13 hex digits ≈ 142 years of ms). */
const MAX_TIME_DIGITS = 13;

function hexTime(text: string): number | null {
  if (!HEX.test(text) || text.length > MAX_TIME_DIGITS) return null;
  return Number.parseInt(text, 16);
}

/** Transponders are compared as numbers: `0A`, `a` and `00a` are the same transponder. */
function transponderId(text: string): string | null {
  if (!HEX.test(text) || text.length > 8) return null;
  return Number.parseInt(text, 16).toString(16);
}

/** One frame's body (between `%` and `&`) as a frame. */
export function parseZroundFrame(body: string): ZroundFrame {
  const code = body[0];
  const rest = body.slice(1);
  const malformed = { type: 'malformed', text: body } as const;
  switch (code) {
    case 'L': {
      const comma = rest.indexOf(',');
      const tx = comma >= 0 ? rest.slice(0, comma) : rest.slice(0, 2);
      const timeText = comma >= 0 ? rest.slice(comma + 1) : rest.slice(2);
      const transponder = transponderId(tx);
      const time = hexTime(timeText);
      if (transponder === null || time === null) return malformed;
      return { type: 'lap', transponder, time };
    }
    case 'T': {
      const time = hexTime(rest);
      return time === null ? malformed : { type: 'clock', time };
    }
    case 'A':
      return rest === '' ? { type: 'ack' } : malformed;
    case 'I':
      return rest === '' ? { type: 'start' } : malformed;
    case 'F':
      return rest === '' ? { type: 'stop' } : malformed;
    case 'C':
      return rest === '' ? { type: 'startup' } : malformed;
    default:
      return malformed;
  }
}

/** Reassembles frames from a byte stream (one parser per connection). */
export class ZroundParser {
  /** The current frame's body after its `%`, or null when between frames. */
  #partial: string | null = null;

  /** Feeds one chunk; returns the frames it completed, in order. */
  push(chunk: string): ZroundFrame[] {
    const frames: ZroundFrame[] = [];
    for (const char of chunk) {
      if (char === '%') {
        // A `%` inside a frame starts a new one: the broken one before it is lost, not merged.
        if (this.#partial !== null && this.#partial !== '') {
          frames.push({ type: 'malformed', text: this.#partial });
        }
        this.#partial = '';
      } else if (this.#partial === null) {
        // Garbage between frames (line ends, noise on a serial bridge) is skipped.
      } else if (char === '&') {
        frames.push(parseZroundFrame(this.#partial));
        this.#partial = null;
      } else if (this.#partial.length >= MAX_FRAME_LENGTH) {
        frames.push({ type: 'malformed', text: `${this.#partial.slice(0, 16)}…` });
        this.#partial = null;
      } else {
        this.#partial += char;
      }
    }
    return frames;
  }

  /** Characters held for an unfinished frame (for tests: never more than MAX_FRAME_LENGTH). */
  get pendingLength(): number {
    return this.#partial?.length ?? 0;
  }

  /** A new connection starts clean. */
  reset(): void {
    this.#partial = null;
  }
}
