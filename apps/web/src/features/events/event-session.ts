/**
 * Keeps the race event socket in step with the session (spec §4): connected whenever an access
 * token exists, disconnected when it is gone, following the auth client's token changes. A
 * `force_disconnect {reason}` from the server is shown to the user (translated when the reason is
 * known) and sends them home.
 */
import { DISCONNECT_REASONS } from '@telerace/protocol';
import { getAccessToken, onTokenChange } from '../../lib/auth-client';
import { type EventMessage, type EventSocketManager, eventSocket } from '../../lib/event-socket';

/** Reasons the server gives that have their own text (`control.forceDisconnect.<reason>`). */
export const KNOWN_DISCONNECT_REASONS: readonly string[] = DISCONNECT_REASONS;

export interface EventSessionOptions {
  navigate: (to: string) => unknown;
  /** Shows the message (window.alert in the app). */
  notify: (message: string) => void;
  translate: (key: string, options?: Record<string, unknown>) => string;
  socket?: EventSocketManager;
}

export function forceDisconnectText(reason: unknown, translate: EventSessionOptions['translate']): string {
  if (typeof reason === 'string' && KNOWN_DISCONNECT_REASONS.includes(reason)) {
    return translate(`control.forceDisconnect.${reason}`);
  }
  return translate('control.forceDisconnect.other', {
    reason: typeof reason === 'string' && reason !== '' ? reason : '—',
  });
}

/** Starts following the session; returns a function that stops and disconnects. */
export function bindEventSocketToSession({
  navigate,
  notify,
  translate,
  socket = eventSocket,
}: EventSessionOptions): () => void {
  const follow = (token: string | null) => {
    if (token) socket.connect(token);
    else socket.disconnect();
  };
  follow(getAccessToken());
  const stopFollowing = onTokenChange(follow);
  const unsubscribe = socket.subscribe((message: EventMessage) => {
    if (message.type !== 'force_disconnect') return;
    notify(forceDisconnectText(message.reason, translate));
    navigate('/');
  });
  return () => {
    stopFollowing();
    unsubscribe();
    socket.disconnect();
  };
}
