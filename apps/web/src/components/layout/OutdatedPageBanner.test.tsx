import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { EventSocketManager } from '../../lib/event-socket';
import { OutdatedPage } from '../../lib/outdated-page';
import { FakeSocket, fakeSocketFactory } from '../../test/fake-socket';
import { OutdatedPageBanner } from './OutdatedPageBanner';

beforeEach(async () => {
  FakeSocket.reset();
  await i18n.changeLanguage('en');
});

describe('the reload banner of a page the server no longer speaks to', () => {
  it('appears when the event socket hears incompatible, and reloads from the keyboard', async () => {
    const user = userEvent.setup();
    const outdated = new OutdatedPage();
    const reload = vi.fn();
    render(<OutdatedPageBanner store={outdated} reload={reload} />);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    const events = new EventSocketManager({
      createSocket: fakeSocketFactory,
      location: { protocol: 'http:', host: 'race.test' },
      outdated,
    });
    events.connect('t1');
    act(() => {
      FakeSocket.last.serverOpen();
      FakeSocket.last.serverSend({
        type: 'incompatible',
        reason: 'client_too_old',
        supported: { min: 2, max: 2 },
      });
      FakeSocket.last.serverClose(SOCKET_CLOSE_CODES.incompatible, 'client_too_old');
    });

    const banner = screen.getByRole('alert', { name: 'Telerace has been updated' });
    expect(banner).toHaveTextContent('This page is out of date: reload it to keep racing.');
    await user.tab();
    expect(screen.getByRole('button', { name: 'Reload' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(reload).toHaveBeenCalledTimes(1);
    events.disconnect();
  });

  it('says when the page is newer than the server, in French too', async () => {
    const outdated = new OutdatedPage();
    outdated.refused('server_too_old');
    const { unmount } = render(<OutdatedPageBanner store={outdated} reload={() => {}} />);
    expect(screen.getByRole('alert', { name: 'This page is newer than the server' })).toHaveTextContent(
      'The server runs an older version of Telerace: reload the page to get the version that matches it.',
    );
    unmount();

    await i18n.changeLanguage('fr');
    render(<OutdatedPageBanner store={outdated} reload={() => {}} />);
    expect(screen.getByRole('alert', { name: 'Cette page est plus récente que le serveur' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Recharger' })).toBeEnabled();
  });
});
