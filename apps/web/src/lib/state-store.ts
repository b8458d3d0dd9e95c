/**
 * A state that changes over time and tells whoever subscribed: the shape React's
 * `useSyncExternalStore` reads. The control socket and the video stream both are one; a new state
 * object is made on every change, so a subscriber can compare by identity.
 */
export class StateStore<State extends object> {
  private readonly listeners = new Set<(state: State) => void>();

  constructor(protected state: State) {}

  getState(): State {
    return this.state;
  }

  subscribe(listener: (state: State) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  protected update(patch: Partial<State>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of [...this.listeners]) listener(this.state);
  }
}
