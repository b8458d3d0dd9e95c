/**
 * Joining the race lobby from the control page (spec §4 "Lobby join"): `join_lobby {carId}` is
 * sent and the join is `joining` until the member appears among the participants (`joined`), or
 * `failed` after TIMERS_MS.lobbyJoinTimeout without that (Retry sends it again). A `server_busy`
 * answer (the engine is writing results) sends the join again after TIMERS_MS.serverBusyRetry,
 * with a fresh timeout. An `error` while joining (e.g. errors.notCarHolder) fails the join with
 * its text. Once joined, leaving the participants (the race ended, the session ended) ends it.
 * `leave()` sends `leave_lobby`: a driver who only wants to drive is no longer counted.
 *
 * With a car to join with (`autoJoinCarId`, the control page's car), the join is sent by itself
 * (issue 25): on the first race state of each event-socket connection (the page opening, a
 * reconnect), when no race is running (idle or lobby) and the member is not a participant yet.
 * A driver who left the lobby is not joined again by this page; Join race still works.
 */
import { type RaceState, TIMERS_MS } from '@telerace/protocol';
import type { EventMessage, EventSocketManager } from '../../lib/event-socket';
import { StateStore } from '../../lib/state-store';

export type LobbyJoinPhase =
  | { kind: 'none' }
  | { kind: 'joining'; carId: number }
  | { kind: 'joined'; carId: number }
  /** `error` is the server's refusal when it gave one; without it the join timed out. */
  | { kind: 'failed'; carId: number; error: { text: string; errorKey: string } | null };

export function isParticipant(state: RaceState | null, userId: number | null): boolean {
  return state?.participants.some((p) => p.userId === userId) ?? false;
}

export class LobbyJoin extends StateStore<{ phase: LobbyJoinPhase }> {
  private timeout: ReturnType<typeof setTimeout> | undefined;
  private busyRetry: ReturnType<typeof setTimeout> | undefined;
  private unsubscribe: (() => void) | null = null;
  /** The event-socket connection (`opens`) whose first state was already looked at. */
  private lookedAtConnection: number | null = null;
  /** The driver left the lobby on this page: no joining by itself any more. */
  private left = false;

  constructor(
    private readonly socket: EventSocketManager,
    private readonly userId: number,
    /** The latest race state known (the race store's), read when the join is sent. */
    private readonly currentState: () => RaceState | null,
    /** The car the page joins with by itself; null: only on request. */
    private readonly autoJoinCarId: number | null = null,
  ) {
    super({ phase: { kind: 'none' } });
  }

  get phase(): LobbyJoinPhase {
    return this.state.phase;
  }

  start(): () => void {
    this.unsubscribe ??= this.socket.subscribe((message) => this.receive(message));
    // Already a participant (the page was reopened during the lobby): nothing to wait for.
    const state = this.currentState();
    const mine = state?.participants.find((p) => p.userId === this.userId);
    if (mine) this.setPhase({ kind: 'joined', carId: mine.carId });
    // The store follows the open socket: its state is this connection's.
    else if (state && this.socket.isOpen) this.joinByItself(state);
    return () => this.stop();
  }

  stop(): void {
    this.clearTimers();
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Sends the join (also the Retry of a failed one). */
  join(carId: number): void {
    if (isParticipant(this.currentState(), this.userId)) {
      this.setPhase({ kind: 'joined', carId });
      return;
    }
    this.setPhase({ kind: 'joining', carId });
    this.send(carId);
  }

  /** Leaves the lobby (`leave_lobby`); the next state without the member ends the join. */
  leave(): void {
    this.left = true;
    this.clearTimers();
    if (this.phase.kind !== 'joined') this.setPhase({ kind: 'none' });
    this.socket.send({ type: 'leave_lobby' });
  }

  /** The first state of a connection: join when nothing stops it (see the top of this file). */
  private joinByItself(state: RaceState): void {
    if (this.lookedAtConnection === this.socket.opens) return;
    this.lookedAtConnection = this.socket.opens;
    const open = state.race_status === 'idle' || state.race_status === 'lobby';
    if (this.autoJoinCarId === null || this.left || !open) return;
    if (isParticipant(state, this.userId) || this.phase.kind === 'joining') return;
    this.join(this.autoJoinCarId);
  }

  private send(carId: number): void {
    this.clearTimers();
    this.socket.send({ type: 'join_lobby', carId });
    this.timeout = setTimeout(() => {
      if (this.phase.kind === 'joining') this.setPhase({ kind: 'failed', carId, error: null });
    }, TIMERS_MS.lobbyJoinTimeout);
  }

  private receive(message: EventMessage): void {
    const phase = this.phase;
    if (message.type === 'race_state_update') {
      const mine = message.payload.participants.find((p) => p.userId === this.userId);
      if (mine && phase.kind !== 'joined') {
        this.clearTimers();
        this.setPhase({ kind: 'joined', carId: mine.carId });
      } else if (!mine && phase.kind === 'joined') {
        this.setPhase({ kind: 'none' });
      }
      this.joinByItself(message.payload);
      return;
    }
    if (phase.kind !== 'joining') return;
    if (message.type === 'server_busy') {
      clearTimeout(this.timeout);
      clearTimeout(this.busyRetry);
      this.busyRetry = setTimeout(() => {
        if (this.phase.kind === 'joining') this.send(phase.carId);
      }, TIMERS_MS.serverBusyRetry);
    } else if (message.type === 'error') {
      this.clearTimers();
      this.setPhase({
        kind: 'failed',
        carId: phase.carId,
        error: { text: message.error, errorKey: message.errorKey },
      });
    }
  }

  private setPhase(phase: LobbyJoinPhase): void {
    this.update({ phase });
  }

  private clearTimers(): void {
    clearTimeout(this.timeout);
    clearTimeout(this.busyRetry);
    this.timeout = undefined;
    this.busyRetry = undefined;
  }
}
