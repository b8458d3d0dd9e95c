/**
 * Keeps the race event socket in step with the session (spec §4): connected whenever an access
 * token exists, disconnected when it is gone, following the auth client's token changes. A
 * `car_session_ended {reason}` (the driving session ended) or `force_disconnect {reason}` (every
 * socket of the member closes) from the server is shown to the user (translated when the reason is
 * known) and sends them home. The race store follows the same socket, and the end of a race the
 * member took part in is announced once ('race ended', or 'called off' for a lobby closed before
 * the start) and sends them home too (race-end.ts), where their result waits (issue 41).
 */
import { DISCONNECT_REASONS } from '@telerace/protocol';
import type { TranslationKey } from '../../i18n';
import { getAccessToken, onTokenChange } from '../../lib/auth-client';
import { type EventMessage, type EventSocketManager, eventSocket } from '../../lib/event-socket';
import { readTokenClaims } from '../../lib/socket-token';
import { RaceEndWatch } from '../race/race-end';
import { type RaceStore, raceStore } from '../race/race-store';

export interface EventSessionOptions {
  navigate: (to: string) => unknown;
  /** Shows the message (window.alert in the app). */
  notify: (message: string) => void;
  translate: (key: TranslationKey, options?: Record<string, unknown>) => string;
  socket?: EventSocketManager;
  /** The race store fed by the socket (default: the app's, on the app's socket). */
  races?: RaceStore;
}

export function forceDisconnectText(reason: unknown, translate: EventSessionOptions['translate']): string {
  // Every reason the server gives has its own text (`control.forceDisconnect.<reason>`).
  const known = DISCONNECT_REASONS.find((name) => name === reason);
  if (known) return translate(`control.forceDisconnect.${known}`);
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
  races = raceStore,
}: EventSessionOptions): () => void {
  const follow = (token: string | null) => {
    if (token) socket.connect(token);
    else {
      socket.disconnect();
      races.clear();
    }
  };
  follow(getAccessToken());
  const stopFollowing = onTokenChange(follow);
  const detachRaces = races.attach();
  const raceEnd = new RaceEndWatch(() => {
    const member = Number(readTokenClaims(socket.currentToken)?.sub);
    return Number.isInteger(member) ? member : null;
  });
  const unsubscribe = socket.subscribe((message: EventMessage) => {
    // The member's result waits at home (issue 41); a lobby closed before the start has none.
    const raceEndText = () =>
      translate(raceEnd.calledOff ? 'pages.home.lastRace.calledOff' : 'control.forceDisconnect.race_ended');
    if (message.type === 'race_state_update' && raceEnd.onState(message.payload)) {
      notify(raceEndText());
      navigate('/');
    }
    // A driving session's end, or every socket of the member closing (a ban, a deletion…).
    if (message.type !== 'car_session_ended' && message.type !== 'force_disconnect') return;
    // The race's end was already announced by its state: only the way home is left.
    if (message.reason !== 'race_ended') notify(forceDisconnectText(message.reason, translate));
    else if (raceEnd.onRaceEndedDisconnect()) notify(raceEndText());
    navigate('/');
  });
  return () => {
    stopFollowing();
    unsubscribe();
    detachRaces();
    races.clear();
    socket.disconnect();
  };
}
