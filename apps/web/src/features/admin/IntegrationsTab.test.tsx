import {
  type AdminIntegrationsResponse,
  type AdminSettings,
  DEFAULT_ADMIN_SETTINGS,
  type IntegrationStatus,
} from '@telerace/protocol';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { adminUser, callsTo, json, type Route, renderSignedIn, stubFetch } from '../profile/testing';
import { IntegrationsTab } from './IntegrationsTab';

/** The tests' clock stands still here, so "10 sec ago" stays true however slow the run. */
const NOW = Date.parse('2026-11-26T20:00:00.000Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

const status = (id: IntegrationStatus['id'], fields: Partial<IntegrationStatus> = {}): IntegrationStatus => ({
  id,
  state: 'not_configured',
  target: null,
  lastError: null,
  lastErrorAt: null,
  since: ago(3 * 60),
  canSendTestMessage: false,
  ...fields,
});

const live: AdminIntegrationsResponse = {
  joinCommand: '!race',
  integrations: [
    status('twitch', {
      state: 'connected',
      target: '#telerace',
      since: ago(5 * 60),
      canSendTestMessage: true,
    }),
    status('youtube', {
      state: 'error',
      target: 'live chat Cg0KC',
      lastError: 'quotaExceeded: the daily quota is used up',
      lastErrorAt: ago(2 * 60),
      since: ago(2 * 60),
    }),
    status('discord', { state: 'connecting', target: 'guild 42', canSendTestMessage: true }),
    status('tips'),
  ],
  openRaffleEntries: { twitch: 3, youtube: 1, discord: 0 },
  // Listed out of order on purpose: the tab shows the newest first.
  recentEvents: [
    { at: ago(50), platform: 'twitch', kind: 'subscription', displayName: 'Subby', months: 3 },
    { at: ago(10), platform: 'twitch', kind: 'join', displayName: 'Speedy', outcome: 'entered' },
    { at: ago(20), platform: 'youtube', kind: 'join', displayName: 'Late', outcome: 'already_in' },
    {
      at: ago(30),
      platform: 'youtube',
      kind: 'donation',
      displayName: 'Generous',
      amount: 5,
      currency: 'USD',
      tickets: 5,
    },
    { at: ago(40), platform: 'discord', kind: 'subscription_end', displayName: 'Leaver' },
    { at: ago(60), platform: 'discord', kind: 'join', displayName: 'Early', outcome: 'no_raffle' },
    { at: ago(70), platform: 'twitch', kind: 'subscription', displayName: 'Newbie', months: 0 },
  ],
};

const quiet: AdminIntegrationsResponse = {
  joinCommand: '!join',
  integrations: (['twitch', 'youtube', 'discord', 'tips'] as const).map((id) => status(id)),
  openRaffleEntries: null,
  recentEvents: [],
};

const settings: AdminSettings = DEFAULT_ADMIN_SETTINGS;

/** The tab's two reads (integrations, and the run-time settings its announcement switches show). */
const stubTab = (routes: Record<string, Route>) =>
  stubFetch({ 'GET /api/admin/settings': () => json(200, settings), ...routes });

const card = (name: string) => within(screen.getByRole('region', { name }));

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  await i18n.changeLanguage('en');
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('admin IntegrationsTab', () => {
  it('shows each integration’s state, target, time in state and last error, the join command and the entries', async () => {
    stubTab({ 'GET /api/admin/integrations': () => json(200, live) });
    await renderSignedIn(<IntegrationsTab />, adminUser);

    expect(await screen.findByTestId('integrations-join-command')).toHaveTextContent(
      'Viewers type !race in chat to enter the open raffle.',
    );
    const entries = within(screen.getByLabelText('Entries in the open raffle'));
    expect(entries.getByText('Twitch')).toBeVisible();
    expect(screen.getByTestId('integrations-entries-twitch')).toHaveTextContent('3');
    expect(screen.getByTestId('integrations-entries-youtube')).toHaveTextContent('1');
    expect(screen.getByTestId('integrations-entries-discord')).toHaveTextContent('0');

    const twitch = card('Twitch');
    expect(twitch.getByTestId('integration-state')).toHaveTextContent('Connected');
    expect(twitch.getByText('#telerace')).toBeVisible();
    expect(twitch.getByText('5 min ago')).toBeVisible();
    expect(twitch.getByText('None')).toBeVisible();

    const youtube = card('YouTube');
    expect(youtube.getByTestId('integration-state')).toHaveTextContent('Error');
    expect(youtube.getByTestId('integration-last-error')).toHaveTextContent(
      'quotaExceeded: the daily quota is used up2 min ago',
    );
    // YouTube cannot write to the chat here: no test message button.
    expect(youtube.queryByRole('button')).toBeNull();

    expect(card('Discord').getByTestId('integration-state')).toHaveTextContent('Connecting');
    const tips = card('Tips');
    expect(tips.getByTestId('integration-state')).toHaveTextContent('Not configured');
    expect(tips.getByText('Not set')).toBeVisible();
    expect(tips.getByText(/Add its settings to the server's environment/)).toBeVisible();
  });

  it('lists the recent events newest first, each with its time, platform, name and what happened', async () => {
    stubTab({ 'GET /api/admin/integrations': () => json(200, live) });
    await renderSignedIn(<IntegrationsTab />, adminUser);
    const list = await screen.findByRole('list', { name: 'Recent events' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      '10 sec agoTwitchSpeedyjoined the raffle',
      '20 sec agoYouTubeLatewas already in the raffle',
      '30 sec agoYouTubeGenerousdonated 5 USD → 5 tickets',
      '40 sec agoDiscordLeaversubscription ended',
      '50 sec agoTwitchSubbysubscribed (3 months)',
      '1 min agoDiscordEarlytyped the join command, but no raffle was open',
      '1 min agoTwitchNewbiesubscribed',
    ]);
  });

  it('says when no raffle is open and nothing happened yet', async () => {
    stubTab({ 'GET /api/admin/integrations': () => json(200, quiet) });
    await renderSignedIn(<IntegrationsTab />, adminUser);
    expect(await screen.findByText('No raffle open')).toBeVisible();
    expect(screen.getByText('Nothing yet')).toBeVisible();
    expect(screen.queryByRole('list', { name: 'Recent events' })).toBeNull();
    expect(screen.getAllByText('Not configured')).toHaveLength(4);
    expect(screen.getByTestId('integrations-join-command')).toHaveTextContent('Viewers type !join');
  });

  it('shows an error with Retry when the integrations cannot be loaded, and loads them on Retry', async () => {
    const user = userEvent.setup();
    let answer = json(500, { error: 'Internal' });
    const fetchMock = stubTab({ 'GET /api/admin/integrations': () => answer });
    await renderSignedIn(<IntegrationsTab />, adminUser);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load the integrations.');

    answer = json(200, quiet);
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('No raffle open')).toBeVisible();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(callsTo(fetchMock, 'GET', '/api/admin/integrations')).toHaveLength(2);
  });

  it('sends a test message to a connected chat, and is disabled with a hint while not connected', async () => {
    const user = userEvent.setup();
    let release = () => {};
    const fetchMock = stubTab({
      'GET /api/admin/integrations': () => json(200, live),
      'POST /api/admin/integrations/twitch/test-message': () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(new Response(null, { status: 204 }));
        }),
    });
    await renderSignedIn(<IntegrationsTab />, adminUser);

    const discord = await screen.findByRole('button', { name: 'Send test message to Discord' });
    expect(discord).toBeDisabled();
    expect(discord).toHaveAccessibleDescription('Available once connected.');

    const twitch = screen.getByRole('button', { name: 'Send test message to Twitch' });
    expect(twitch).toBeEnabled();
    await user.click(twitch);
    expect(await card('Twitch').findByText('Sending…')).toBeVisible();
    expect(twitch).toBeDisabled();
    release();
    expect(await card('Twitch').findByText('Test message sent.')).toBeVisible();
    expect(card('Twitch').queryByText('Sending…')).toBeNull();
    expect(callsTo(fetchMock, 'POST', '/api/admin/integrations/twitch/test-message')).toEqual([{}]);
  });

  it('shows why a test message was not sent', async () => {
    const user = userEvent.setup();
    stubTab({
      'GET /api/admin/integrations': () => json(200, live),
      'POST /api/admin/integrations/twitch/test-message': () =>
        json(409, { error: 'Not connected', errorKey: 'errors.integrationNotConnected' }),
    });
    await renderSignedIn(<IntegrationsTab />, adminUser);
    await user.click(await screen.findByRole('button', { name: 'Send test message to Twitch' }));
    expect(await card('Twitch').findByRole('alert')).toHaveTextContent(
      'This integration is not connected; the message was not sent.',
    );
  });

  it('reads the integrations again every 5 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, now: NOW });
    let answer = quiet;
    const fetchMock = stubTab({ 'GET /api/admin/integrations': () => json(200, answer) });
    await renderSignedIn(<IntegrationsTab />, adminUser);
    expect(await screen.findByText('No raffle open')).toBeVisible();

    answer = live;
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    await waitFor(() => expect(screen.getByTestId('integrations-entries-twitch')).toHaveTextContent('3'));
    expect(callsTo(fetchMock, 'GET', '/api/admin/integrations')).toHaveLength(2);
  });

  it('speaks French', async () => {
    await i18n.changeLanguage('fr');
    stubTab({ 'GET /api/admin/integrations': () => json(200, live) });
    await renderSignedIn(<IntegrationsTab />, adminUser);
    await screen.findByRole('region', { name: 'Twitch' });
    expect(card('Twitch').getByText('Connectée')).toBeVisible();
    expect(card('Pourboires').getByText('Non configurée')).toBeVisible();
    expect(screen.getByTestId('integrations-join-command')).toHaveTextContent(
      'Les spectateurs tapent !race dans le chat pour participer au tirage ouvert.',
    );
    expect(screen.getByRole('button', { name: 'Envoyer un message de test sur Twitch' })).toBeEnabled();
  });
});

describe('admin IntegrationsTab: the chat announcements', () => {
  const section = () => within(screen.getByRole('region', { name: 'Chat announcements' }));
  /** The section appears with the rest of the tab, once the integrations are read. */
  const render = async () => {
    await renderSignedIn(<IntegrationsTab />, adminUser);
    await screen.findByRole('region', { name: 'Chat announcements' });
  };
  const SWITCHES = ['Raffle opened', 'Raffle winners', 'Race podium'];

  it('shows a switch for each announcement once the settings are read, all on', async () => {
    let release = () => {};
    stubTab({
      'GET /api/admin/integrations': () => json(200, quiet),
      'GET /api/admin/settings': () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(200, { ...settings, chat_announce_race_podium: false }));
        }),
    });
    await render();
    expect(await section().findByRole('status')).toHaveTextContent('Loading…');
    expect(section().queryByRole('switch')).toBeNull();
    release();
    expect(await section().findByRole('switch', { name: /Raffle opened/ })).toBeChecked();
    expect(section().getByRole('switch', { name: /Raffle winners/ })).toBeChecked();
    expect(section().getByRole('switch', { name: /Race podium/ })).not.toBeChecked();
    expect(section().getAllByRole('switch')).toHaveLength(3);
  });

  it('saves one switch at once, busy meanwhile, and says so', async () => {
    const user = userEvent.setup();
    let release = () => {};
    const fetchMock = stubTab({
      'GET /api/admin/integrations': () => json(200, quiet),
      'PATCH /api/admin/settings': ({ body }) =>
        new Promise<Response>((resolve) => {
          release = () => resolve(json(200, { ...settings, ...(body as object) }));
        }),
    });
    await render();
    const winners = await section().findByRole('switch', { name: /Raffle winners/ });
    await user.click(winners);
    expect(await section().findByText('Saving…')).toBeVisible();
    for (const name of SWITCHES)
      expect(section().getByRole('switch', { name: new RegExp(name) })).toBeDisabled();
    release();
    expect(await section().findByText('Announcements saved.')).toBeVisible();
    expect(winners).not.toBeChecked();
    expect(winners).toBeEnabled();
    expect(section().getByRole('switch', { name: /Raffle opened/ })).toBeChecked();
    expect(callsTo(fetchMock, 'PATCH', '/api/admin/settings')).toEqual([
      { chat_announce_raffle_winners: false },
    ]);
  });

  it('shows why a save was refused and keeps the switch as it was', async () => {
    const user = userEvent.setup();
    stubTab({
      'GET /api/admin/integrations': () => json(200, quiet),
      'PATCH /api/admin/settings': () => json(403, { error: 'Forbidden', errorKey: 'errors.forbidden' }),
    });
    await render();
    const opened = await section().findByRole('switch', { name: /Raffle opened/ });
    await user.click(opened);
    expect(await section().findByRole('alert')).toHaveTextContent('You are not allowed to do that.');
    expect(opened).toBeChecked();
    expect(opened).toBeEnabled();
  });

  it('says when the settings cannot be read, and reads them again on Retry', async () => {
    const user = userEvent.setup();
    let answer = json(500, { error: 'Internal' });
    stubTab({
      'GET /api/admin/integrations': () => json(200, quiet),
      'GET /api/admin/settings': () => answer,
    });
    await render();
    expect(await section().findByRole('alert')).toHaveTextContent(
      'Could not load the announcement settings.',
    );
    answer = json(200, settings);
    await user.click(section().getByRole('button', { name: 'Retry' }));
    expect(await section().findByRole('switch', { name: /Race podium/ })).toBeChecked();
    expect(section().queryByRole('alert')).toBeNull();
  });

  it('speaks French', async () => {
    await i18n.changeLanguage('fr');
    const user = userEvent.setup();
    stubTab({
      'GET /api/admin/integrations': () => json(200, quiet),
      'PATCH /api/admin/settings': ({ body }) => json(200, { ...settings, ...(body as object) }),
    });
    await renderSignedIn(<IntegrationsTab />, adminUser);
    const frSection = within(await screen.findByRole('region', { name: 'Annonces dans le chat' }));
    expect(await frSection.findByRole('switch', { name: /Tirage ouvert/ })).toBeChecked();
    expect(frSection.getByRole('switch', { name: /Gagnants du tirage/ })).toBeChecked();
    await user.click(frSection.getByRole('switch', { name: /Podium de la course/ }));
    expect(await frSection.findByText('Annonces enregistrées.')).toBeVisible();
    expect(frSection.getByRole('switch', { name: /Podium de la course/ })).not.toBeChecked();
  });
});
