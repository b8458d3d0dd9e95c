import { DISCONNECT_REASONS } from '@telerace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { resetAuthClient, setAccessToken } from '../../lib/auth-client';
import { EventSocketManager } from '../../lib/event-socket';
import { FakeSocket, fakeSocketFactory } from '../../test/fake-socket';
import { tokenFor } from '../../test/fake-token';
import { pilot, raceState } from '../../test/races';
import { RaceStore } from '../race/race-store';
import { bindEventSocketToSession, forceDisconnectText } from './event-session';

const location = { protocol: 'http:', host: 'race.test' };

beforeEach(async () => {
  FakeSocket.reset();
  resetAuthClient();
  await i18n.changeLanguage('en');
});
afterEach(() => resetAuthClient());

function bind() {
  const socket = new EventSocketManager({ createSocket: fakeSocketFactory, location });
  const navigate = vi.fn();
  const notify = vi.fn();
  const races = new RaceStore(socket);
  const unbind = bindEventSocketToSession({ navigate, notify, translate: i18n.t, socket, races });
  return { socket, navigate, notify, unbind, races };
}

describe('event socket and the session', () => {
  it('connects when a token exists, follows token changes and disconnects when it is gone', () => {
    setAccessToken('a1');
    const { socket } = bind();
    expect(FakeSocket.last.url).toContain('token=a1');
    setAccessToken('a2');
    expect(FakeSocket.instances).toHaveLength(2);
    expect(socket.currentToken).toBe('a2');
    setAccessToken(null);
    expect(socket.currentToken).toBeNull();
    expect(FakeSocket.last.closedWith).not.toBeNull();
  });

  it('does not connect without a session', () => {
    bind();
    expect(FakeSocket.instances).toHaveLength(0);
  });

  it('alerts the translated reason of a driving session ended or a force_disconnect and goes home', async () => {
    setAccessToken('a1');
    const { navigate, notify } = bind();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({ type: 'car_session_ended', reason: 'kicked' });
    expect(notify).toHaveBeenCalledWith('An admin ended your driving session.');
    expect(navigate).toHaveBeenCalledWith('/');

    await i18n.changeLanguage('fr');
    FakeSocket.last.serverSend({ type: 'force_disconnect', reason: 'car_deleted' });
    expect(notify).toHaveBeenLastCalledWith('La voiture que vous pilotiez a été supprimée.');
    // A reason outside DISCONNECT_REASONS fails the message's schema; from an older server it would
    // still read as a sentence.
    expect(forceDisconnectText('maintenance', i18n.t)).toBe('Vous avez été déconnecté : maintenance');
  });

  it('has its own text, in English and French, for every reason the server gives', async () => {
    for (const language of ['en', 'fr']) {
      await i18n.changeLanguage(language);
      const fallback = forceDisconnectText('?', i18n.t);
      for (const reason of DISCONNECT_REASONS) {
        const text = forceDisconnectText(reason, i18n.t);
        expect(text).not.toBe(fallback.replace('?', reason));
        expect(text).not.toContain('forceDisconnect');
      }
    }
  });

  it('stops following on unbind', () => {
    setAccessToken('a1');
    const { unbind, socket } = bind();
    unbind();
    expect(socket.currentToken).toBeNull();
    setAccessToken('a2');
    expect(FakeSocket.instances).toHaveLength(1);
  });

  it("feeds the race store, and alerts 'race ended' once and goes home when the member's race ends", () => {
    setAccessToken(tokenFor(12));
    const { navigate, notify, races, unbind } = bind();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ participants: [pilot(12)] }),
    });
    expect(races.getState().state?.participants).toHaveLength(1);
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ race_status: 'active', participants: [pilot(12)] }),
    });
    expect(notify).not.toHaveBeenCalled();
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ race_status: 'idle', race_id: null }),
    });
    expect(notify).toHaveBeenCalledWith('The race has ended.');
    expect(navigate).toHaveBeenCalledWith('/');
    // The server's race_ended disconnect of the same race: home again, but no second alert.
    FakeSocket.last.serverSend({ type: 'car_session_ended', reason: 'race_ended' });
    expect(notify).toHaveBeenCalledTimes(1);
    unbind();
    expect(races.getState().state).toBeNull();
  });

  it('says a lobby closed before the start was called off, with no result, whichever message comes first', async () => {
    setAccessToken(tokenFor(12));
    const { navigate, notify } = bind();
    FakeSocket.last.serverOpen();
    const lobby = (raceId: number) =>
      FakeSocket.last.serverSend({
        type: 'race_state_update',
        payload: raceState({ race_status: 'lobby', race_id: raceId, participants: [pilot(12)] }),
      });
    lobby(7);
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ race_status: 'idle', race_id: null }),
    });
    expect(notify).toHaveBeenLastCalledWith(
      'The race was called off before the start: no result was recorded.',
    );
    expect(navigate).toHaveBeenLastCalledWith('/');
    // The server's disconnect first, in French this time.
    await i18n.changeLanguage('fr');
    lobby(8);
    FakeSocket.last.serverSend({ type: 'car_session_ended', reason: 'race_ended' });
    expect(notify).toHaveBeenLastCalledWith(
      "La course a été annulée avant le départ : aucun résultat n'a été enregistré.",
    );
    expect(notify).toHaveBeenCalledTimes(2);
  });

  it('leaves a member who was not in the race where they are', () => {
    setAccessToken(tokenFor(12));
    const { navigate, notify } = bind();
    FakeSocket.last.serverOpen();
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ race_status: 'active', participants: [pilot(5)] }),
    });
    FakeSocket.last.serverSend({
      type: 'race_state_update',
      payload: raceState({ race_status: 'idle', race_id: null }),
    });
    expect(notify).not.toHaveBeenCalled();
    expect(navigate).not.toHaveBeenCalled();
  });
});
