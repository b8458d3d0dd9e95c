/**
 * Maps a decoder's clock to ours. A ZRound decoder gives only its own race time (ms since it was
 * told to start), so a pass's wall-clock time is estimated from when we received frames: the
 * offset is the smallest (our receive time − decoder time) seen, i.e. the frame that travelled
 * fastest, which makes a mapped time never later than its receive time. When the decoder's time
 * goes backwards (it restarted or was told to start again) the offset is measured afresh.
 */
export class DecoderClock {
  #offset: number | null = null;
  #last = -1;

  /** Our epoch ms for the decoder's `decoderMs`, received at our `receivedAt`. */
  toEpoch(decoderMs: number, receivedAt: number): number {
    const offset = receivedAt - decoderMs;
    if (this.#offset === null || decoderMs < this.#last) this.#offset = offset;
    else this.#offset = Math.min(this.#offset, offset);
    this.#last = decoderMs;
    return decoderMs + this.#offset;
  }

  /** A new connection: the decoder's clock may have restarted. */
  reset(): void {
    this.#offset = null;
    this.#last = -1;
  }
}
