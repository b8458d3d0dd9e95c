/**
 * The newest command wins (issue 42): drives and stops reach the car by two paths — the car
 * socket and the drive channel — numbered in one sequence per socket (`seq`). A command whose
 * number is not above the last one taken is a late copy, or an older command that the other path
 * overtook, and is ignored: a drive that comes late by the socket never undoes a newer stop that
 * the channel brought. A command without a number (a server older than the channel) is taken.
 */
export class NewestCommand {
  #last = -1;

  /** Whether the command numbered `seq` is taken (and becomes the newest). */
  take(seq: number | undefined): boolean {
    if (seq === undefined) return true;
    if (seq <= this.#last) return false;
    this.#last = seq;
    return true;
  }

  /** A new socket: its server numbers commands from the start again. */
  reset(): void {
    this.#last = -1;
  }
}
