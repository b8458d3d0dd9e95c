/**
 * Frames per second and kilobits per second the car really sends, whatever its camera: the
 * pipeline passes every encoded frame through `identity name=sent silent=false` and runs with
 * `gst-launch-1.0 -v`, which prints one `last-message = chain … (sent:sink) (N bytes, …)` line per
 * frame on stdout. The meter counts those lines and their bytes (events on the same element print
 * `(sent:sink) E (…` and are not frames), and the keyframes among them (no `delta-unit` flag).
 */

/** The name of the pipeline's counting element (pipeline.ts puts it after the encoder). */
export const SENT_FRAMES_ELEMENT = 'sent';

const FRAME_MARK = `(${SENT_FRAMES_ELEMENT}:sink) (`;
/** A frame's line is about 250 characters; a longer unfinished line is kept only this far. */
const MAX_PARTIAL_LINE = 4_096;
/** The rate is recomputed at most this often, over at least this long. */
const WINDOW_MS = 1_000;

export class FrameMeter {
  private partial = '';
  private counted = 0;
  private keys = 0;
  private bytes = 0;
  private window:
    | { at: number; frames: number; bytes: number; fps: number | undefined; kbps: number | undefined }
    | undefined;

  constructor(private readonly now: () => number) {}

  /** Frames counted so far. */
  get frames(): number {
    return this.counted;
  }

  /** Keyframes (IDR) counted so far: frames whose buffer is not a delta unit. */
  get keyframes(): number {
    return this.keys;
  }

  /** A chunk of GStreamer's stdout (lines may be split across chunks). */
  feed(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = (lines.pop() ?? '').slice(0, MAX_PARTIAL_LINE);
    for (const line of lines) {
      const mark = line.indexOf(FRAME_MARK);
      if (mark === -1) continue;
      this.counted++;
      if (!line.includes(' delta-unit ', mark)) this.keys++;
      this.bytes += Number.parseInt(line.slice(mark + FRAME_MARK.length), 10) || 0;
    }
  }

  /**
   * Frames per second over the last window of at least a second, rounded to 0.1; undefined until
   * a first window has passed since the first call.
   */
  fps(): number | undefined {
    return this.measure().fps;
  }

  /** Kilobits per second of encoded video over the same window, rounded; undefined until then. */
  kbps(): number | undefined {
    return this.measure().kbps;
  }

  private measure(): { fps: number | undefined; kbps: number | undefined } {
    const now = this.now();
    if (!this.window) {
      this.window = { at: now, frames: this.counted, bytes: this.bytes, fps: undefined, kbps: undefined };
    } else if (now - this.window.at >= WINDOW_MS) {
      const seconds = (now - this.window.at) / 1_000;
      const fps = (this.counted - this.window.frames) / seconds;
      const kbps = ((this.bytes - this.window.bytes) * 8) / 1_000 / seconds;
      this.window = {
        at: now,
        frames: this.counted,
        bytes: this.bytes,
        fps: Math.round(fps * 10) / 10,
        kbps: Math.round(kbps),
      };
    }
    return this.window;
  }
}
