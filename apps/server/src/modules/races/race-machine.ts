/**
 * The race's state machine, pure (docs/races.md "States"):
 *
 *   idle ──join──▶ lobby ──start──▶ countdown ──(countdown ends)──▶ active ──(expires | end)──▶ finishing ──▶ idle
 *                    │  ▲                │                                                        ▲
 *                    └──┘ join, leave,   └───────────────── end ─────────────────────────────────┘
 *                         toggle_ready        (lobby: end, or its last participant leaves)
 *
 * Each function takes the state and returns the next one, or refuses with a RaceRefusal (the
 * engine turns it into a DomainError). Nothing here does I/O or reads a clock: times are passed in
 * as epoch milliseconds, which is what makes every transition and every refusal unit-testable.
 */
import { ERROR_KEYS, type ErrorKey, type RaceParticipant, type RaceStatus } from '@telerace/protocol';

export interface RaceMachineState {
  status: RaceStatus;
  /** The race row (lobby onwards). */
  raceId: number | null;
  /** In join order. */
  participants: RaceParticipant[];
  /** When the countdown reaches zero (countdown onwards), epoch ms. */
  countdownEndsAt: number | null;
  /** When the active race ends by itself (countdown onwards), epoch ms. */
  expiresAt: number | null;
}

export const IDLE: RaceMachineState = {
  status: 'idle',
  raceId: null,
  participants: [],
  countdownEndsAt: null,
  expiresAt: null,
};

export type RefusalKind = 'conflict' | 'forbidden' | 'busy';

/** Why a command was refused; `busy` means "not now, retry" (server_busy on the event socket). */
export interface RaceRefusal {
  refused: true;
  kind: RefusalKind;
  errorKey: ErrorKey;
  message: string;
}

export type Outcome = RaceMachineState | RaceRefusal;

export function isRefusal(outcome: Outcome): outcome is RaceRefusal {
  return 'refused' in outcome;
}

const refuse = (kind: RefusalKind, errorKey: ErrorKey, message: string): RaceRefusal => ({
  refused: true,
  kind,
  errorKey,
  message,
});

const BUSY = refuse('busy', ERROR_KEYS.raceBusy, 'The last race is being saved; try again in a moment.');

export interface Joiner {
  userId: number;
  username: string;
  carId: number;
  carName: string;
}

/**
 * A driver joins with a car they hold. Opens the lobby when idle (`raceId` is the new race row);
 * idempotent in the lobby (joining again with another held car switches car and clears ready).
 */
export function join(state: RaceMachineState, joiner: Joiner, raceId: number | null): Outcome {
  if (state.status === 'finishing') return BUSY;
  if (state.status === 'countdown' || state.status === 'active')
    return refuse('conflict', ERROR_KEYS.raceInProgress, 'A race is in progress; join the next one.');
  const existing = state.participants.find((p) => p.userId === joiner.userId);
  if (existing && existing.carId === joiner.carId) return state;
  if (state.participants.some((p) => p.carId === joiner.carId && p.userId !== joiner.userId))
    return refuse('forbidden', ERROR_KEYS.notCarHolder, 'You do not hold this car.');
  const participant: RaceParticipant = { ...joiner, isReady: false, ping: existing?.ping ?? null };
  const participants = existing
    ? state.participants.map((p) => (p.userId === joiner.userId ? participant : p))
    : [...state.participants, participant];
  if (state.status === 'idle') {
    if (raceId === null) throw new Error('opening a lobby needs its race id');
    return { ...IDLE, status: 'lobby', raceId, participants };
  }
  return { ...state, participants };
}

/**
 * A participant's car session ended. In the lobby they leave (the lobby closes to idle when it
 * empties: see `isEmptyLobby`); once the race has started they stay, with their laps, in the results.
 */
export function leave(state: RaceMachineState, userId: number): RaceMachineState {
  if (state.status !== 'lobby') return state;
  return { ...state, participants: state.participants.filter((p) => p.userId !== userId) };
}

/**
 * A raffle's draw opens the lobby its winners will join once they claim their car: an empty lobby
 * from idle (`raceId` is the new race row). Anything else is left as it is: winners join the
 * lobby already open, or the next one once the race running now is over.
 */
export function openLobby(state: RaceMachineState, raceId: number | null): RaceMachineState {
  if (state.status !== 'idle') return state;
  if (raceId === null) throw new Error('opening a lobby needs its race id');
  return { ...IDLE, status: 'lobby', raceId };
}

export function isEmptyLobby(state: RaceMachineState): boolean {
  return state.status === 'lobby' && state.participants.length === 0;
}

export function toggleReady(state: RaceMachineState, userId: number): Outcome {
  if (state.status !== 'lobby' || !state.participants.some((p) => p.userId === userId))
    return refuse('conflict', ERROR_KEYS.notInLobby, 'You are not in the race lobby.');
  return {
    ...state,
    participants: state.participants.map((p) => (p.userId === userId ? { ...p, isReady: !p.isReady } : p)),
  };
}

/** A participant's latency report; anyone else's is ignored (the state comes back unchanged). */
export function reportPing(state: RaceMachineState, userId: number, latency: number): RaceMachineState {
  const ping = Math.round(latency);
  if (!state.participants.some((p) => p.userId === userId && p.ping !== ping)) return state;
  return {
    ...state,
    participants: state.participants.map((p) => (p.userId === userId ? { ...p, ping } : p)),
  };
}

export interface StartTiming {
  now: number;
  countdownSeconds: number;
  raceLengthMinutes: number;
}

/** The admin starts the race: only from a lobby with someone in it. Both end times are fixed now. */
export function start(
  state: RaceMachineState,
  { now, countdownSeconds, raceLengthMinutes }: StartTiming,
): Outcome {
  if (state.status !== 'lobby')
    return refuse('conflict', ERROR_KEYS.raceNotInLobby, 'A race can only be started from the lobby.');
  if (state.participants.length === 0)
    return refuse('conflict', ERROR_KEYS.raceNoParticipants, 'Nobody is in the lobby.');
  const countdownEndsAt = now + countdownSeconds * 1000;
  return {
    ...state,
    status: 'countdown',
    countdownEndsAt,
    expiresAt: countdownEndsAt + raceLengthMinutes * 60_000,
  };
}

/**
 * Time passes: a countdown whose end has come becomes active; an active race whose end has come
 * starts finishing. (A restart calls this too, with the stored times.)
 */
export function advance(state: RaceMachineState, now: number): RaceMachineState {
  let next = state;
  if (next.status === 'countdown' && next.countdownEndsAt !== null && now >= next.countdownEndsAt)
    next = { ...next, status: 'active' };
  if (next.status === 'active' && next.expiresAt !== null && now >= next.expiresAt)
    next = { ...next, status: 'finishing' };
  return next;
}

/** The admin ends the race (lobby, countdown or active): its results are written next. */
export function end(state: RaceMachineState): Outcome {
  if (state.status === 'idle') return refuse('conflict', ERROR_KEYS.raceNotRunning, 'No race is running.');
  if (state.status === 'finishing') return BUSY;
  return { ...state, status: 'finishing' };
}

/** The results are written: back to idle. */
export function finished(_state: RaceMachineState): RaceMachineState {
  return IDLE;
}

/** Seconds left in the countdown (N…1), null outside it. */
export function countdownValue(state: RaceMachineState, now: number): number | null {
  if (state.status !== 'countdown' || state.countdownEndsAt === null) return null;
  return Math.max(1, Math.ceil((state.countdownEndsAt - now) / 1000));
}
