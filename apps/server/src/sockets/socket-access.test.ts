/**
 * A socket's declared `access` (define-socket.ts): the kit checks the access token before `admit`
 * runs, refuses as REST does (401 without a valid token, 403 `registrationIncomplete` for a member
 * who has not accepted the terms where `member` is declared), hands the member to `admit`, and the
 * renewal an open socket gets is that same check.
 */
import websocket from '@fastify/websocket';
import { ERROR_KEYS } from '@telerace/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { systemClock } from '../clock.js';
import { type Authenticator, type Member, unauthorized } from '../http/authenticate.js';
import { type HttpError, handleError } from '../http/errors.js';
import type { UserRow } from '../kernel/users.repo.js';
import { listen, openSocket, refusedStatus, upgradeRefusal } from '../test/sockets.js';
import { defineSocket, registerSockets } from './define-socket.js';
import { MemberSockets } from './member-sockets.js';
import { newDropCounters } from './message-guard.js';
import { messageTable } from './message-table.js';
import { SocketAdmission } from './socket-admission.js';
import type { SocketConnection } from './socket-connection.js';
import { SocketMeter } from './socket-meter.js';
import type { TokenCheck } from './socket-token.js';

/** Two members: `accepted` took the terms, `newcomer` (a social sign-up) has not yet. */
const memberOf = (id: number, termsAccepted: boolean): Member => ({
  user: { id, termsAcceptedAt: termsAccepted ? new Date() : null } as UserRow,
  claims: { userId: id, sessionId: null, issuedAt: 0, issuedAtMs: 0, expiresAt: 0 },
});
const MEMBERS: Record<string, Member> = { accepted: memberOf(1, true), newcomer: memberOf(2, false) };
const authenticator: Authenticator = {
  member: async (token) => {
    const member = token === null ? undefined : MEMBERS[token];
    if (!member) throw unauthorized();
    return member;
  },
};

const Renew = z.discriminatedUnion('type', [z.object({ type: z.literal('renew'), token: z.string() })]);
/** Who `admit` was handed, per socket path. */
const admitted: Record<string, number[]> = { '/members': [], '/watchers': [] };

function memberSocket(path: '/members' | '/watchers', access: 'member' | 'member-before-terms') {
  return defineSocket({
    name: 'test',
    path,
    ownOrigin: false,
    access,
    limits: { perAddress: false },
    admit: async (_request, { user }) => {
      admitted[path]?.push(user.id);
      return user.id;
    },
    open: (connection, _userId, _request, renewal) => ({ connection, renewal }),
    messages: messageTable<{ connection: SocketConnection; renewal: TokenCheck }, z.infer<typeof Renew>>(
      Renew,
      {
        renew: async ({ connection, renewal }, { token }) => {
          try {
            connection.send({ type: 'renewed', userId: (await renewal(token)).user.id });
          } catch (error) {
            connection.send({ type: 'refused', status: (error as HttpError).statusCode });
          }
        },
      },
    ),
    keepalive: { pingMs: 60_000, silenceMs: 60_000 },
    dropped: newDropCounters(),
  });
}

let app: FastifyInstance;
let host: string;

beforeAll(async () => {
  app = Fastify();
  // The app's one error handler: a refusal is `{error, errorKey}` as the server answers it.
  app.setErrorHandler(handleError);
  await app.register(websocket);
  registerSockets(
    app,
    [memberSocket('/members', 'member'), memberSocket('/watchers', 'member-before-terms')],
    {
      publicUrl: 'http://localhost',
      authenticator,
      places: new SocketAdmission(100),
      memberSockets: new MemberSockets(),
      meter: new SocketMeter(),
      keepaliveClock: systemClock,
    },
  );
  host = await listen(app);
});
afterAll(() => app.close());

const open = (path: string, token?: string) =>
  openSocket(`ws://${host}${path}${token === undefined ? '' : `?token=${token}`}`);

describe("a socket's declared access", () => {
  it('refuses an upgrade without a valid token with 401, before admit runs', async () => {
    expect(await refusedStatus(open('/members'))).toBe(401);
    expect(await refusedStatus(open('/watchers', 'forged'))).toBe(401);
    expect(admitted).toEqual({ '/members': [], '/watchers': [] });
  });

  it('refuses a member who has not accepted the terms where `member` is declared, and lets them watch', async () => {
    const refusal = await upgradeRefusal(`ws://${host}/members?token=newcomer`, 'http://localhost');
    expect(refusal).toMatchObject({ status: 403, body: { errorKey: ERROR_KEYS.registrationIncomplete } });
    const watching = await open('/watchers', 'newcomer');
    expect(admitted['/watchers']).toEqual([2]);
    await watching.close();
  });

  it("renews an open socket's token with the admission's own check", async () => {
    const socket = await open('/members', 'accepted');
    expect(admitted['/members']).toEqual([1]);
    socket.send({ type: 'renew', token: 'accepted' });
    expect(await socket.nextOfType('renewed')).toEqual({ type: 'renewed', userId: 1 });
    socket.send({ type: 'renew', token: 'newcomer' });
    expect(await socket.nextOfType('refused')).toEqual({ type: 'refused', status: 403 });
    socket.send({ type: 'renew', token: 'forged' });
    expect(await socket.nextOfType('refused')).toEqual({ type: 'refused', status: 401 });
    await socket.close();
  });
});
