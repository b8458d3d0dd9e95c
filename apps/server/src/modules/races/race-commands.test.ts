import { ERROR_KEYS, EventClientMessage } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain-error.js';
import { ManualClock } from '../../test/clock.js';
import { Race, type RaceDeps } from './race.js';
import {
  RACE_COMMANDS,
  type RaceCommandName,
  type RaceCommandRunner,
  type RacePayload,
  raceSocketCommands,
} from './race-commands.js';
import { RaceBusyError } from './race-roles.js';

/** One payload per command: the compiler asks for a new command's, so the tests below cover it. */
const SAMPLES: { [N in RaceCommandName]: RacePayload<N> } = {
  join_lobby: { userId: 1, carId: 2 },
  toggle_ready: { userId: 1 },
  ping_update: { userId: 1, latency: 42 },
  leave_lobby: { userId: 1 },
  open_lobby: {},
  start_race: { actor: { id: 7, username: 'admin' } },
  end_race: { actor: { id: 7, username: 'admin' } },
};
const NAMES = Object.keys(RACE_COMMANDS) as RaceCommandName[];

/** A follower: a race given a way to the leader follows until it is told to lead (nothing here touches the database). */
function follower() {
  const sent: { how: 'call' | 'tell'; call: string; payload: unknown }[] = [];
  const race = new Race({
    clock: new ManualClock(),
    leader: {
      call: async (call, payload) => {
        sent.push({ how: 'call', call, payload });
        return null;
      },
      tell: (call, payload) => sent.push({ how: 'tell', call, payload }),
    },
    adminView: () => {
      throw new Error('a follower shows no admin view of its own');
    },
  } as Partial<RaceDeps> as RaceDeps);
  return { race, sent };
}

describe('the race command table', () => {
  it('gives every command its own name on the leader-calls channel, and a payload its schema takes', () => {
    const calls = NAMES.map((name) => RACE_COMMANDS[name].call);
    expect(new Set(calls).size).toBe(calls.length);
    for (const name of NAMES) expect(RACE_COMMANDS[name].payload.parse(SAMPLES[name])).toEqual(SAMPLES[name]);
  });

  it.each(NAMES)('a follower sends %s to the leader as declared, carrying its payload', async (name) => {
    const { race, sent } = follower();
    await race.run(name, SAMPLES[name] as never);
    const declared = RACE_COMMANDS[name];
    expect(sent).toEqual([{ how: declared.forward, call: declared.call, payload: SAMPLES[name] }]);
  });

  it('a call reaching an instance that does not lead is refused as busy (the client retries)', async () => {
    const { race } = follower();
    await expect(
      race.answerFollowers()(RACE_COMMANDS.leave_lobby.call, SAMPLES.leave_lobby),
    ).rejects.toBeInstanceOf(RaceBusyError);
  });
});

describe('the event socket dispatch made from the table', () => {
  const recorder = (fail?: (name: RaceCommandName) => Error | undefined) => {
    const ran: { name: RaceCommandName; payload: unknown }[] = [];
    const runner: RaceCommandRunner = {
      run: async (name, payload) => {
        ran.push({ name, payload });
        const error = fail?.(name);
        if (error) throw error;
        return undefined as never;
      },
    };
    return { runner, ran };
  };
  const link = { userId: 5 };

  it('has one handler per race command the socket carries, each admitted first and given the member', async () => {
    const { runner, ran } = recorder();
    const admitted: number[] = [];
    const handlers = raceSocketCommands(runner, {
      admit: async (l) => {
        admitted.push(l.userId);
      },
      answer: () => undefined,
    });
    const socketTypes = EventClientMessage.options.map((option) => option.shape.type.value as string);
    expect(Object.keys(handlers).sort()).toEqual(NAMES.filter((name) => socketTypes.includes(name)).sort());
    await handlers.join_lobby(link, { type: 'join_lobby', carId: 3 });
    await handlers.leave_lobby(link, { type: 'leave_lobby' });
    expect(ran).toEqual([
      { name: 'join_lobby', payload: { carId: 3, userId: 5 } },
      { name: 'leave_lobby', payload: { userId: 5 } },
    ]);
    expect(admitted).toEqual([5, 5]);
  });

  it('answers a busy join with server_busy, and lets any other refusal through to the socket', async () => {
    const { runner } = recorder((name) =>
      name === 'join_lobby'
        ? new RaceBusyError()
        : new DomainError('conflict', 'You are not in the race lobby.', ERROR_KEYS.notInLobby),
    );
    const answered: unknown[] = [];
    const handlers = raceSocketCommands(runner, {
      admit: async () => undefined,
      answer: (_link, message) => answered.push(message),
    });
    await handlers.join_lobby(link, { type: 'join_lobby', carId: 3 });
    expect(answered).toEqual([{ type: 'server_busy' }]);
    await expect(handlers.leave_lobby(link, { type: 'leave_lobby' })).rejects.toMatchObject({
      errorKey: ERROR_KEYS.notInLobby,
    });
  });
});
