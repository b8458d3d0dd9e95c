import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN, json, member, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

const newcomer = { ...member, username: 'twitchy#40', registration_complete: false };

function completeServer() {
  return stubServer({
    session: newcomer,
    handle: ({ method, url, auth }) =>
      method === 'POST' && url === '/api/auth/complete-registration' && auth === `Bearer ${ACCESS_TOKEN}`
        ? json(200, { user: { ...newcomer, registration_complete: true } })
        : undefined,
  });
}

describe('complete registration', () => {
  it('greets the member by displayed name and requires the terms', async () => {
    const user = userEvent.setup();
    const fetchMock = completeServer();
    renderApp('/complete-registration');
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, twitchy!' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Finish sign-up' }));
    expect(screen.getByRole('alert')).toHaveTextContent('You must agree to the Terms to continue.');
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/auth/complete-registration')).toBe(false);
  });

  it('confirms, then opens the stored final destination once', async () => {
    const user = userEvent.setup();
    window.sessionStorage.setItem('final_destination', '/car-selection');
    completeServer();
    const { router } = renderApp('/complete-registration');
    await user.click(await screen.findByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Finish sign-up' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Choose a car' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/car-selection');
    expect(window.sessionStorage.getItem('final_destination')).toBeNull();
  });

  it('goes home without a stored destination', async () => {
    const user = userEvent.setup();
    completeServer();
    const { router } = renderApp('/complete-registration');
    await user.click(await screen.findByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Finish sign-up' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome to Telerace' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });
});
