import { describe, expect, it } from 'vitest';
import { JanusSocketGuard, MAX_HANDLES_PER_SOCKET, MAX_SESSIONS_PER_SOCKET } from './janus-guard.js';

const STREAMING = 'janus.plugin.streaming';
let next = 0;
const tx = () => `t${++next}`;

/** A guard with a session (and a streaming handle on it) as Janus would have confirmed them. */
function withSession(options: { handle?: boolean } = {}) {
  const guard = new JanusSocketGuard();
  const create = tx();
  expect(guard.check({ janus: 'create', transaction: create })).toBeNull();
  guard.observe({ janus: 'success', transaction: create, data: { id: 100 } });
  if (options.handle) {
    const attach = tx();
    expect(
      guard.check({ janus: 'attach', session_id: 100, plugin: STREAMING, transaction: attach }),
    ).toBeNull();
    guard.observe({ janus: 'success', session_id: 100, transaction: attach, data: { id: 200 } });
  }
  return guard;
}

describe('JanusSocketGuard: what a browser may ask', () => {
  it('refuses anything without a request type and a transaction', () => {
    const guard = new JanusSocketGuard();
    expect(guard.check({})).toBe('malformed request');
    expect(guard.check({ janus: 'create' })).toBe('malformed request');
    expect(guard.check({ janus: 'create', transaction: 7 })).toBe('malformed request');
    expect(guard.check({ janus: 42, transaction: 'x' })).toBe('malformed request');
  });

  it('lets a session be created, then only that session be used', () => {
    const guard = withSession();
    expect(guard.held).toEqual({ sessions: 1, handles: 0 });
    expect(guard.check({ janus: 'keepalive', session_id: 100, transaction: tx() })).toBeNull();
    expect(guard.check({ janus: 'keepalive', session_id: 101, transaction: tx() })).toBe('unknown session');
    expect(guard.check({ janus: 'keepalive', session_id: '100', transaction: tx() })).toBe('unknown session');
    expect(guard.check({ janus: 'keepalive', transaction: tx() })).toBe('unknown session');
  });

  it('attaches the streaming plugin only', () => {
    const guard = withSession();
    for (const plugin of ['janus.plugin.echotest', 'janus.plugin.videoroom', undefined]) {
      expect(guard.check({ janus: 'attach', session_id: 100, plugin, transaction: tx() })).toBe(
        'plugin not allowed',
      );
    }
    expect(
      guard.check({ janus: 'attach', session_id: 100, plugin: STREAMING, transaction: tx() }),
    ).toBeNull();
  });

  it('forwards watching requests on its own handle, and no admin request', () => {
    const guard = withSession({ handle: true });
    const message = (request: unknown, handle_id: unknown = 200) =>
      guard.check({ janus: 'message', session_id: 100, handle_id, transaction: tx(), body: { request } });
    for (const request of ['watch', 'start', 'pause', 'stop']) expect(message(request)).toBeNull();
    for (const request of ['create', 'destroy', 'edit', 'list', 'info', 'switch', 'recording', undefined]) {
      expect(message(request)).toBe('request not allowed');
    }
    expect(guard.check({ janus: 'message', session_id: 100, handle_id: 200, transaction: tx() })).toBe(
      'request not allowed',
    );
    expect(message('watch', 201)).toBe('unknown handle');
    expect(message('watch', null)).toBe('unknown handle');
    for (const janus of ['trickle', 'hangup', 'detach']) {
      expect(guard.check({ janus, session_id: 100, handle_id: 200, transaction: tx() })).toBeNull();
      expect(guard.check({ janus, session_id: 100, handle_id: 999, transaction: tx() })).toBe(
        'unknown handle',
      );
    }
  });

  it('forwards a configure that asks for a playout delay, and no other configure', () => {
    const guard = withSession({ handle: true });
    const configure = (body: Record<string, unknown>) =>
      guard.check({
        janus: 'message',
        session_id: 100,
        handle_id: 200,
        transaction: tx(),
        body: { request: 'configure', ...body },
      });
    expect(configure({ min_delay: 0, max_delay: 0 })).toBeNull();
    expect(configure({ max_delay: 4095 })).toBeNull();
    // Pausing, switching layers or streams: not a viewer's to ask.
    for (const body of [
      { min_delay: -1 },
      { max_delay: 4096 },
      { min_delay: 0.5 },
      { min_delay: '0' },
      { min_delay: 0, send: false },
      { substream: 2 },
      { mid: 'v', min_delay: 0 },
      {},
    ]) {
      expect(configure(body), JSON.stringify(body)).toBe('request not allowed');
    }
  });

  it("refuses a handle used on another of the socket's sessions", () => {
    const guard = withSession({ handle: true });
    const create = tx();
    guard.check({ janus: 'create', transaction: create });
    guard.observe({ janus: 'success', transaction: create, data: { id: 101 } });
    expect(guard.check({ janus: 'hangup', session_id: 101, handle_id: 200, transaction: tx() })).toBe(
      'unknown handle',
    );
  });

  it('refuses other request types', () => {
    const guard = withSession();
    for (const janus of ['info', 'claim', 'list_sessions', 'server_info', 'message_plugin']) {
      expect(guard.check({ janus, session_id: 100, transaction: tx() })).toBe('request not allowed');
    }
  });

  it('refuses a transaction still waiting for its answer', () => {
    const guard = new JanusSocketGuard();
    expect(guard.check({ janus: 'create', transaction: 'same' })).toBeNull();
    expect(guard.check({ janus: 'create', transaction: 'same' })).toBe('transaction in use');
  });
});

describe('JanusSocketGuard: how much a socket may hold', () => {
  it(`holds at most ${MAX_SESSIONS_PER_SOCKET} sessions, counting those being created`, () => {
    const guard = new JanusSocketGuard();
    const creates = Array.from({ length: MAX_SESSIONS_PER_SOCKET }, tx);
    for (const create of creates) expect(guard.check({ janus: 'create', transaction: create })).toBeNull();
    expect(guard.check({ janus: 'create', transaction: tx() })).toBe('too many sessions');
    // A creation Janus refused frees its place.
    guard.observe({ janus: 'error', transaction: creates[0], error: { code: 490 } } as never);
    expect(guard.check({ janus: 'create', transaction: tx() })).toBeNull();
  });

  it('frees a session once Janus confirms its destruction or times it out', () => {
    const guard = new JanusSocketGuard();
    const ids = [100, 101];
    for (const id of ids) {
      const create = tx();
      guard.check({ janus: 'create', transaction: create });
      guard.observe({ janus: 'success', transaction: create, data: { id } });
    }
    expect(guard.check({ janus: 'create', transaction: tx() })).toBe('too many sessions');

    const destroy = tx();
    expect(guard.check({ janus: 'destroy', session_id: 100, transaction: destroy })).toBeNull();
    expect(guard.check({ janus: 'create', transaction: tx() })).toBe('too many sessions');
    guard.observe({ janus: 'success', session_id: 100, transaction: destroy });
    expect(guard.held.sessions).toBe(1);
    expect(guard.check({ janus: 'keepalive', session_id: 100, transaction: tx() })).toBe('unknown session');

    guard.observe({ janus: 'timeout', session_id: 101 });
    expect(guard.held.sessions).toBe(0);
  });

  it(`holds at most ${MAX_HANDLES_PER_SOCKET} handles over its sessions, and frees them when detached`, () => {
    const guard = withSession();
    const attach = () => {
      const transaction = tx();
      return {
        transaction,
        refused: guard.check({ janus: 'attach', session_id: 100, plugin: STREAMING, transaction }),
      };
    };
    const attaches = Array.from({ length: MAX_HANDLES_PER_SOCKET }, attach);
    expect(attaches.map((a) => a.refused)).toEqual(attaches.map(() => null));
    expect(attach().refused).toBe('too many handles');
    attaches.forEach((a, i) => {
      guard.observe({ janus: 'success', session_id: 100, transaction: a.transaction, data: { id: 300 + i } });
    });
    expect(guard.held.handles).toBe(MAX_HANDLES_PER_SOCKET);

    // Detached on request, or by Janus (its `detached` event).
    const detach = tx();
    expect(guard.check({ janus: 'detach', session_id: 100, handle_id: 300, transaction: detach })).toBeNull();
    guard.observe({ janus: 'success', session_id: 100, transaction: detach });
    guard.observe({ janus: 'detached', session_id: 100, sender: 301 });
    expect(guard.held.handles).toBe(MAX_HANDLES_PER_SOCKET - 2);
    expect(attach().refused).toBeNull();
  });

  it("frees a session's handles with the session", () => {
    const guard = withSession({ handle: true });
    guard.observe({ janus: 'timeout', session_id: 100 });
    expect(guard.held).toEqual({ sessions: 0, handles: 0 });
  });

  it('ignores acks, events and answers it did not ask for', () => {
    const guard = withSession({ handle: true });
    guard.observe({ janus: 'ack', transaction: 'unknown' });
    guard.observe({ janus: 'success', transaction: 'unknown', data: { id: 555 } });
    guard.observe({ janus: 'event', session_id: 100, sender: 200 });
    guard.observe({ janus: 'webrtcup', session_id: 100, sender: 200 });
    expect(guard.held).toEqual({ sessions: 1, handles: 1 });
  });
});
