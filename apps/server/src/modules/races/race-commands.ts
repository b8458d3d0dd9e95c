/**
 * The race's commands, each declared once (issue 44): who sends it, the schema of what it carries,
 * its handler, and where it runs. What used to be written again per command is made from this
 * table: the follower's forwarding to the leader and the leader's answer (race.ts), the event
 * socket's dispatch (`raceSocketCommands`, in race-feed.socket.ts) and the "Race commands" table of
 * docs/protocol.md (src/docs/protocol-doc.ts). docs/architecture.md "The race command table" says
 * how to add one.
 *
 * A command is asked for and answered (or refused). What the race does about a fact — a session
 * that ended, a counted pass — is no command: race-roles.ts `RaceFactReactions`.
 */
import { type AdminRaceResponse, EventClientMessage } from '@telerace/protocol';
import { z } from 'zod';
import type { RaceEngine } from './race-engine.js';
import { RaceBusyError, raceAudit } from './race-roles.js';

/** What a handler runs against: the leader's engine, and the admin's view of it. */
export interface RaceCommandContext {
  engine: RaceEngine;
  /** The Race Control tab's answer as the leader sees the race (its lap counter too). */
  adminView(): AdminRaceResponse;
}

type EventMessageType = EventClientMessage['type'];
type EventMessage<T extends EventMessageType> = Extract<EventClientMessage, { type: T }>;

interface RaceCommand<Payload extends z.ZodObject, Answer> {
  /**
   * Its name on the leader-calls channel (scale-out/leader-calls.ts). Instances of two releases
   * talk during a rolling upgrade: a name stays as long as what it carries does.
   */
  call: string;
  /** Every command runs where the race runs: on the leader (one process always leads). */
  runsOn: 'leader';
  /**
   * How a follower sends it: `call` waits for the leader's answer or refusal; `tell` sends it and
   * answers at once (a ping lost in a handover does not matter, the next comes in 2 s).
   */
  forward: 'call' | 'tell';
  /** Who sends it (docs). A command named after an event socket message is that message. */
  sentBy: string;
  /** What it carries to the leader; a socket command's is its message's fields and the member. */
  payload: Payload;
  /** Socket commands: a refusal as busy is answered with this message instead of an error. */
  busyAnswer?: 'server_busy';
  /** What it does (docs). */
  summary: string;
  run(context: RaceCommandContext, payload: z.output<Payload>): Promise<Answer> | Answer;
}

/** Infers each command's payload and answer (the table's entries keep their own types). */
const command = <Payload extends z.ZodObject, Answer>(declared: RaceCommand<Payload, Answer>) => declared;

const Id = z.number().int().positive();
const Actor = z.object({ id: z.number().int().nullable(), username: z.string() });

/** The event socket's message `type` (its schema in @telerace/protocol), without `type`, plus the member who sent it. */
function sentOnTheEventSocket<T extends EventMessageType>(type: T) {
  const message = EventClientMessage.options.find((option) => option.shape.type.value === type);
  if (!message) throw new Error(`EventClientMessage has no ${type}`);
  return (message as z.ZodObject).omit({ type: true }).extend({ userId: Id }) as unknown as z.ZodType<
    Omit<EventMessage<T>, 'type'> & { userId: number }
  > &
    z.ZodObject;
}

const EVENT_SOCKET = 'the event socket (`/api/race-ws`)';

export const RACE_COMMANDS = {
  join_lobby: command({
    call: 'race.join',
    runsOn: 'leader',
    forward: 'call',
    sentBy: EVENT_SOCKET,
    payload: sentOnTheEventSocket('join_lobby'),
    busyAnswer: 'server_busy',
    summary:
      'Joins the lobby (opening one from idle) with a car the member holds now; the same member with another car switches car. Refused during a race; a join the engine cannot take now (results being written, a handover) is answered `server_busy`.',
    run: ({ engine }, { userId, carId }) => engine.join(userId, carId),
  }),
  toggle_ready: command({
    call: 'race.toggle-ready',
    runsOn: 'leader',
    forward: 'call',
    sentBy: EVENT_SOCKET,
    payload: sentOnTheEventSocket('toggle_ready'),
    summary: "Flips the member's ready flag; lobby participants only.",
    run: ({ engine }, { userId }) => engine.toggleReady(userId),
  }),
  ping_update: command({
    call: 'race.ping',
    runsOn: 'leader',
    forward: 'tell',
    sentBy: EVENT_SOCKET,
    payload: sentOnTheEventSocket('ping_update'),
    summary: "A participant's measured latency, shown in the lobby (memory only: it changes every 2 s).",
    run: ({ engine }, { userId, latency }) => engine.reportPing(userId, latency),
  }),
  leave_lobby: command({
    call: 'race.leave-lobby',
    runsOn: 'leader',
    forward: 'call',
    sentBy: EVENT_SOCKET,
    payload: sentOnTheEventSocket('leave_lobby'),
    summary:
      'The member leaves the lobby to drive without racing and keeps their car; the last one out discards the lobby. Refused (`notInLobby`) unless the member is in the lobby, as the leader sees it.',
    run: ({ engine }, { userId }) => engine.leaveLobby(userId),
  }),
  open_lobby: command({
    call: 'race.open-lobby',
    runsOn: 'leader',
    forward: 'call',
    sentBy: "a raffle's draw with winners (raffles.service.ts)",
    payload: z.object({}),
    summary:
      "Opens an empty lobby from idle for the winners to join; answers the lobby's race id, or null when a race is under way.",
    run: ({ engine }) => engine.openLobby(),
  }),
  start_race: command({
    call: 'race.start',
    runsOn: 'leader',
    forward: 'call',
    sentBy: '`POST /api/admin/race/start`',
    payload: z.object({ actor: Actor }),
    summary: "Lobby → countdown, audited in the same transaction; answers the leader's Race Control view.",
    run: async ({ engine, adminView }, { actor }) => {
      await engine.startRace(raceAudit(actor, 'race.start'));
      return adminView();
    },
  }),
  end_race: command({
    call: 'race.end',
    runsOn: 'leader',
    forward: 'call',
    sentBy: '`POST /api/admin/race/end`',
    payload: z.object({ actor: Actor }),
    summary:
      "Ends the race now (a lobby is closed without results), audited with the state it ended from; answers the leader's Race Control view.",
    run: async ({ engine, adminView }, { actor }) => {
      const before = engine.state().race_status;
      await engine.endRace(raceAudit(actor, 'race.end', { ended_from: before }));
      return adminView();
    },
  }),
};

export type RaceCommandName = keyof typeof RACE_COMMANDS;
type Declared<N extends RaceCommandName> = (typeof RACE_COMMANDS)[N];
export type RacePayload<N extends RaceCommandName> = z.output<Declared<N>['payload']>;
export type RaceAnswer<N extends RaceCommandName> = Awaited<ReturnType<Declared<N>['run']>>;

/** What runs a command where it runs (race.ts). */
export interface RaceCommandRunner {
  run<N extends RaceCommandName>(name: N, payload: RacePayload<N>): Promise<RaceAnswer<N>>;
}

/** The commands a member sends on the event socket: those named after one of its messages. */
type RaceSocketCommand = Extract<RaceCommandName, EventMessageType>;
type SocketHandlers<Link> = {
  [N in RaceSocketCommand]: (link: Link, message: EventMessage<N>) => Promise<void>;
};

/**
 * The event socket's handlers for the race commands: each message, once `admit` lets the member
 * act, runs its command with the member added; a command that answers busy that way says so.
 */
export function raceSocketCommands<Link extends { userId: number }>(
  race: RaceCommandRunner,
  on: { admit(link: Link): Promise<void>; answer(link: Link, message: { type: 'server_busy' }): void },
): SocketHandlers<Link> {
  const handlers: Partial<
    Record<RaceSocketCommand, (link: Link, message: { type: string }) => Promise<void>>
  > = {};
  for (const name of Object.keys(RACE_COMMANDS) as RaceCommandName[]) {
    if (!EventClientMessage.options.some((option) => option.shape.type.value === name)) continue;
    const declared: { busyAnswer?: 'server_busy' } = RACE_COMMANDS[name];
    handlers[name as RaceSocketCommand] = async (link, { type: _type, ...fields }) => {
      await on.admit(link);
      try {
        await race.run(name, { ...fields, userId: link.userId } as RacePayload<typeof name>);
      } catch (error) {
        if (!(declared.busyAnswer && error instanceof RaceBusyError)) throw error;
        on.answer(link, { type: declared.busyAnswer });
      }
    };
  }
  return handlers as SocketHandlers<Link>;
}
