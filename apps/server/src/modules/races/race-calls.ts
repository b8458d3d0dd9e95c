/**
 * The leader's side of the race calls (issue 15): a command a follower received from its sockets
 * or admin routes (race-roles.ts RACE_CALLS), checked and run here on the leader's engine as if
 * it had arrived here. A call that reaches an instance which no longer leads is refused as busy:
 * the client retries and finds the new leader.
 */
import { z } from 'zod';
import type { LeaderHandler } from '../../scale-out/leader-calls.js';
import type { RaceEngine } from './race-engine.js';
import { RACE_CALLS, RaceBusyError } from './race-roles.js';
import type { RacesService } from './races.service.js';

const Id = z.number().int().positive();
const Actor = z.object({ id: z.number().int().nullable(), username: z.string() });

const CALLS = {
  [RACE_CALLS.join]: z.object({ userId: Id, carId: Id }),
  [RACE_CALLS.toggleReady]: z.object({ userId: Id }),
  [RACE_CALLS.ping]: z.object({ userId: Id, latency: z.number() }),
  [RACE_CALLS.openLobby]: z.object({}),
  [RACE_CALLS.leave]: z.object({ userId: Id, carId: Id }),
  [RACE_CALLS.start]: z.object({ actor: Actor }),
  [RACE_CALLS.end]: z.object({ actor: Actor }),
};

export function raceCallHandler(engine: RaceEngine, races: RacesService): LeaderHandler {
  return async (name, payload) => {
    if (!engine.leads) throw new RaceBusyError();
    switch (name) {
      case RACE_CALLS.join: {
        const { userId, carId } = CALLS[name].parse(payload);
        return engine.join(userId, carId);
      }
      case RACE_CALLS.toggleReady:
        return engine.toggleReady(CALLS[name].parse(payload).userId);
      case RACE_CALLS.ping: {
        const { userId, latency } = CALLS[name].parse(payload);
        return engine.reportPing(userId, latency);
      }
      case RACE_CALLS.openLobby:
        return engine.openLobby();
      case RACE_CALLS.leave: {
        const { userId, carId } = CALLS[name].parse(payload);
        return engine.leave(userId, carId);
      }
      case RACE_CALLS.start:
        return races.start(CALLS[name].parse(payload).actor);
      case RACE_CALLS.end:
        return races.end(CALLS[name].parse(payload).actor);
      default:
        throw new Error(`unknown leader call ${name}`);
    }
  };
}
