/**
 * When a race ends for the member (spec §4 "Race status": going from non-idle to idle shows a
 * 'race ended' alert and returns to /). Only a participant of the race that ended is told: a
 * visitor reading the leaderboards is not sent home by someone else's race. The server also ends
 * the participants' driving sessions with `car_session_ended {reason: 'race_ended'}`; whichever of
 * the two arrives first announces the end, the other is silent, so the alert shows once. A lobby
 * closed before the start is no race (the server keeps nothing of it): `calledOff` says so, and the
 * alert tells the member there is no result (issue 41).
 */
import type { RaceState } from '@telerace/protocol';
import { isParticipant } from './lobby-join';

export class RaceEndWatch {
  /** The race last seen running (any status but idle), whether the member was in it and whether it started. */
  private running: { raceId: number | null; mine: boolean; started: boolean } | null = null;
  private announced = false;
  /** Whether the race last announced was a lobby closed before the start (no result). */
  calledOff = false;

  constructor(private readonly userId: () => number | null) {}

  /** A new race state; true when it ends the member's race and that was not announced yet. */
  onState(state: RaceState): boolean {
    if (state.race_status !== 'idle') {
      if (this.running?.raceId !== state.race_id) this.announced = false;
      this.running = {
        raceId: state.race_id,
        mine: isParticipant(state, this.userId()),
        started: state.race_status !== 'lobby',
      };
      return false;
    }
    const ended = this.running;
    this.running = null;
    return ended?.mine === true && this.announce(ended);
  }

  /** The server ended the member's driving session because the race ended; true to announce it. */
  onRaceEndedDisconnect(): boolean {
    return this.announce(this.running);
  }

  private announce(race: { started: boolean } | null): boolean {
    if (this.announced) return false;
    this.announced = true;
    this.calledOff = race !== null && !race.started;
    return true;
  }
}
