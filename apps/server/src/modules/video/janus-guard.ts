/**
 * What one browser socket on `/janus` may ask of Janus, and what it holds there. Only watching is
 * forwarded — sessions and handles of the streaming plugin, `watch`/`start`/`pause`/`stop`,
 * `configure` with a playout delay and nothing else, trickle, keepalive, hang-up and clean-up — and
 * only on the sessions and handles this very socket created. A player needs one session with one handle; the caps leave room for a retry's overlap
 * and stop a member from piling up sessions or peer connections (each holds Janus memory and a
 * UDP port of its small range) at the allowed message rate.
 */
import { STREAMING_PLUGIN } from './janus-client.js';

/** Janus sessions one socket may hold at once (created or being created). */
export const MAX_SESSIONS_PER_SOCKET = 2;
/** Plugin handles one socket may hold at once, over all its sessions. */
export const MAX_HANDLES_PER_SOCKET = 4;

const STREAMING_REQUESTS = new Set(['watch', 'start', 'pause', 'stop']);
/** What a `configure` may carry: the playout delay, in blocks of 10 ms (the RTP extension's 12 bits). */
const PLAYOUT_DELAY_KEYS = new Set(['min_delay', 'max_delay']);
const MAX_PLAYOUT_DELAY = 4095;

/** A streaming request a viewer may make: watching, or `configure` with a playout delay only. */
function allowedRequest(body: JanusRequest['body']): boolean {
  const request = body?.request;
  if (typeof request === 'string' && STREAMING_REQUESTS.has(request)) return true;
  if (request !== 'configure' || !body) return false;
  const fields = Object.keys(body).filter((key) => key !== 'request');
  return (
    fields.length > 0 &&
    Object.entries(body).every(
      ([key, value]) =>
        key === 'request' ||
        (PLAYOUT_DELAY_KEYS.has(key) &&
          Number.isInteger(value) &&
          (value as number) >= 0 &&
          (value as number) <= MAX_PLAYOUT_DELAY),
    )
  );
}

/** A browser's request, as far as the guard reads it. */
export interface JanusRequest {
  janus?: unknown;
  transaction?: unknown;
  session_id?: unknown;
  handle_id?: unknown;
  plugin?: unknown;
  body?: { request?: unknown } | null;
}

/** A message from Janus, as far as the guard reads it. */
export interface JanusAnswer {
  janus?: unknown;
  transaction?: unknown;
  session_id?: unknown;
  sender?: unknown;
  data?: { id?: unknown } | null;
}

type Pending =
  | { kind: 'create' }
  | { kind: 'attach'; session: number }
  | { kind: 'destroy'; session: number }
  | { kind: 'detach'; handle: number };

export class JanusSocketGuard {
  /** Session ids this socket created. */
  private readonly sessions = new Set<number>();
  /** Handle id → its session, for the handles this socket attached. */
  private readonly handles = new Map<number, number>();
  /** Requests that change what the socket holds, by transaction, until Janus answers them. */
  private readonly pending = new Map<string, Pending>();

  /** Why the request is refused, or null: then it may go to Janus (and is remembered until answered). */
  check(message: JanusRequest): string | null {
    const kind = message.janus;
    const transaction = message.transaction;
    if (typeof kind !== 'string' || typeof transaction !== 'string') return 'malformed request';
    if (this.pending.has(transaction)) return 'transaction in use';
    if (kind === 'create') {
      if (this.sessions.size + this.count('create') >= MAX_SESSIONS_PER_SOCKET) return 'too many sessions';
      this.pending.set(transaction, { kind: 'create' });
      return null;
    }
    const session = message.session_id;
    if (typeof session !== 'number' || !this.sessions.has(session)) return 'unknown session';
    switch (kind) {
      case 'keepalive':
        return null;
      case 'destroy':
        this.pending.set(transaction, { kind: 'destroy', session });
        return null;
      case 'attach':
        if (message.plugin !== STREAMING_PLUGIN) return 'plugin not allowed';
        if (this.handles.size + this.count('attach') >= MAX_HANDLES_PER_SOCKET) return 'too many handles';
        this.pending.set(transaction, { kind: 'attach', session });
        return null;
      case 'message':
      case 'trickle':
      case 'hangup':
      case 'detach': {
        const handle = message.handle_id;
        if (typeof handle !== 'number' || this.handles.get(handle) !== session) return 'unknown handle';
        if (kind === 'message' && !allowedRequest(message.body)) {
          return 'request not allowed';
        }
        if (kind === 'detach') this.pending.set(transaction, { kind: 'detach', handle });
        return null;
      }
      default:
        return 'request not allowed';
    }
  }

  /** Follows Janus's answers and events: sessions and handles created, destroyed or timed out. */
  observe(answer: JanusAnswer): void {
    const kind = answer.janus;
    if (kind === 'ack') return;
    if (kind === 'timeout' && typeof answer.session_id === 'number') {
      this.forgetSession(answer.session_id);
      return;
    }
    if (kind === 'detached' && typeof answer.sender === 'number') {
      this.handles.delete(answer.sender);
      return;
    }
    if (typeof answer.transaction !== 'string') return;
    const pending = this.pending.get(answer.transaction);
    if (!pending) return;
    this.pending.delete(answer.transaction);
    if (kind !== 'success') return;
    const id = answer.data?.id;
    switch (pending.kind) {
      case 'create':
        if (typeof id === 'number') this.sessions.add(id);
        break;
      case 'attach':
        if (typeof id === 'number' && this.sessions.has(pending.session))
          this.handles.set(id, pending.session);
        break;
      case 'destroy':
        this.forgetSession(pending.session);
        break;
      case 'detach':
        this.handles.delete(pending.handle);
        break;
    }
  }

  /** What the socket holds now (for tests and logs). */
  get held(): { sessions: number; handles: number } {
    return { sessions: this.sessions.size, handles: this.handles.size };
  }

  private count(kind: Pending['kind']): number {
    let count = 0;
    for (const pending of this.pending.values()) if (pending.kind === kind) count++;
    return count;
  }

  private forgetSession(session: number): void {
    this.sessions.delete(session);
    for (const [handle, owner] of this.handles) if (owner === session) this.handles.delete(handle);
  }
}
