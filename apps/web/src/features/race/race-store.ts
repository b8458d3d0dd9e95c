/**
 * The race as the event socket tells it (spec §3 race state payload, live leaderboard row; §4
 * race status): the latest `race_state_update`, the latest `live_leaderboard_update` and the last
 * measured latency, kept for every screen that shows the race (Control page overlays, Race
 * Control). It follows the session's event socket from the moment the session binds it
 * (event-session.ts), so a page opened later already has the state.
 */
import type { LiveLeaderboardRow, RaceState } from '@telerace/protocol';
import { type EventMessage, type EventSocketManager, eventSocket } from '../../lib/event-socket';
import { StateStore } from '../../lib/state-store';

export interface RaceSnapshot {
  /** Null until the server first told the state (and again after the socket closed for good). */
  state: RaceState | null;
  /** The live leaderboard of the race in `state` (empty when a new race begins). */
  leaderboard: LiveLeaderboardRow[];
  /** Round trip of the event socket in ms, null before the first pong. */
  latency: number | null;
}

export class RaceStore extends StateStore<RaceSnapshot> {
  private detach: (() => void) | null = null;

  constructor(readonly socket: EventSocketManager) {
    super({ state: null, leaderboard: [], latency: null });
  }

  /** Starts following the socket's messages; returns a function that stops. Idempotent. */
  attach(): () => void {
    if (!this.detach) {
      const unsubscribe = this.socket.subscribe((message) => this.receive(message));
      this.detach = () => {
        unsubscribe();
        this.detach = null;
      };
    }
    return () => this.detach?.();
  }

  /** Asks the server for the state now (a screen opened before any state arrived). */
  requestState(): void {
    if (this.socket.isOpen) this.socket.send({ type: 'get_current_state' });
  }

  /** Flips the member's ready flag in the lobby (spec §4 "Ready flag"). */
  toggleReady(): void {
    this.socket.send({ type: 'toggle_ready' });
  }

  /** Forgets everything (the session ended). */
  clear(): void {
    this.update({ state: null, leaderboard: [], latency: null });
  }

  private receive(message: EventMessage): void {
    switch (message.type) {
      case 'race_state_update': {
        const previous = this.state.state;
        // A new race (or none) starts with an empty live leaderboard.
        const sameRace = previous !== null && previous.race_id === message.payload.race_id;
        this.update({ state: message.payload, leaderboard: sameRace ? this.state.leaderboard : [] });
        return;
      }
      case 'live_leaderboard_update':
        this.update({ leaderboard: message.data });
        return;
      case 'pong':
        this.update({ latency: this.socket.latency });
        return;
      default:
        return;
    }
  }
}

/** The app's one race store, on the app's one event socket. */
export const raceStore = new RaceStore(eventSocket);
