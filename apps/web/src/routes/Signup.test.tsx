// @vitest-environment jsdom
// (jsdom, not the suite's happy-dom: the bot check's Google script element is inserted and observed as jsdom does it.)
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACCESS_TOKEN,
  json,
  member,
  NEWCOMER_TICKETS,
  renderApp,
  resetBrowser,
  stubServer,
} from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

afterEach(() => {
  delete window.grecaptcha;
  for (const script of document.querySelectorAll('script[src*="recaptcha"]')) script.remove();
});

const publicConfig = (recaptchaSiteKey: string | null) =>
  json(200, {
    promoVideoUrl: null,
    community: { streaming: null, video: null, chat: null },
    recaptchaSiteKey,
    socialProviders: { twitch: true, youtube: true, discord: true },
    supportEmail: null,
  });

/** The server's answer to a sign-up: the new member's session, as a log-in gives it. */
const signedUp = () => json(201, { accessToken: ACCESS_TOKEN });

function signupServer({
  siteKey = null,
  answer = signedUp(),
}: {
  siteKey?: string | null;
  answer?: Response;
} = {}) {
  let signedIn = false;
  return stubServer({
    session: null,
    handle: ({ method, url, auth }) => {
      if (url === '/api/public-config') return publicConfig(siteKey);
      if (method === 'POST' && url === '/api/signup') {
        signedIn = answer.ok;
        return answer;
      }
      if (signedIn && auth === `Bearer ${ACCESS_TOKEN}`) {
        if (url === '/api/me') return json(200, { user: member });
        if (url === '/api/me/tickets') return json(200, NEWCOMER_TICKETS);
      }
      return undefined;
    },
  });
}

async function fillForm({ terms = true } = {}) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email'), 'new@example.com');
  await user.type(screen.getByLabelText('Username'), 'Racer');
  await user.type(screen.getByLabelText('Password'), 'long enough');
  if (terms) await user.click(screen.getByRole('checkbox'));
  return user;
}

const signupCalls = (fetchMock: ReturnType<typeof stubServer>) =>
  fetchMock.mock.calls.filter(([url]) => url === '/api/signup');

describe('sign-up form', () => {
  it('signs up, signs the member in and welcomes them on /signup-success, leading on to the cars (issue 41 point 7)', async () => {
    const fetchMock = signupServer();
    const { router } = renderApp('/signup');
    const user = await fillForm();
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Account created' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signup-success');
    // Signed in: the top bar greets the member, no log-in link is offered.
    const page = screen.getByRole('main');
    expect(within(page).getByText(/Welcome, speedy! You are signed in/)).toBeInTheDocument();
    expect(within(page).getByRole('link', { name: 'Choose a car' })).toHaveAttribute(
      'href',
      '/car-selection',
    );
    expect(screen.getByRole('button', { name: 'Log out' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Log in' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Go to log in' })).toBeNull();
    const [call] = signupCalls(fetchMock);
    expect(JSON.parse(String(call?.[1]?.body))).toEqual({
      email: 'new@example.com',
      username: 'Racer',
      password: 'long enough',
      recaptchaToken: '',
    });
  });

  it('still leads a visitor who opens /signup-success signed out to the log-in', async () => {
    signupServer();
    renderApp('/signup-success');
    expect(await screen.findByRole('link', { name: 'Go to log in' })).toHaveAttribute('href', '/login');
  });

  it('explains each invalid field and sends nothing', async () => {
    const user = userEvent.setup();
    const fetchMock = signupServer();
    renderApp('/signup');
    await user.type(await screen.findByLabelText('Email'), 'not-an-email');
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Enter a valid email address.');
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Email')).toHaveFocus();
    expect(screen.getByLabelText('Username')).toHaveAccessibleDescription(
      expect.stringContaining('Choose a username.'),
    );
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription(
      expect.stringContaining('Use 8 to 128 characters.'),
    );
    expect(signupCalls(fetchMock)).toHaveLength(0);
  });

  it('requires the terms', async () => {
    const fetchMock = signupServer();
    renderApp('/signup');
    const user = await fillForm({ terms: false });
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByRole('alert')).toHaveTextContent('You must agree to the Terms to continue.');
    expect(screen.getByRole('checkbox')).toHaveAttribute('aria-invalid', 'true');
    expect(signupCalls(fetchMock)).toHaveLength(0);
  });

  it('limits the username to 30 characters and counts them', async () => {
    const user = userEvent.setup();
    signupServer();
    renderApp('/signup');
    const username = await screen.findByLabelText('Username');
    expect(username).toHaveAttribute('maxLength', '30');
    await user.type(username, 'a'.repeat(35));
    expect(username).toHaveValue('a'.repeat(30));
    expect(screen.getByText('30 of 30 characters used')).toBeInTheDocument();
  });

  it('shows and hides the password', async () => {
    const user = userEvent.setup();
    signupServer();
    renderApp('/signup');
    const password = await screen.findByLabelText('Password');
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('autocomplete', 'new-password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(password).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it.each([
    [
      json(409, { error: 'Email or username already in use', errorKey: 'errors.emailOrUsernameInUse' }),
      'Email or username already in use',
    ],
    [
      json(400, { error: 'This username is reserved.', errorKey: 'errors.usernameReserved' }),
      'This username is reserved. Please choose another one.',
    ],
    [
      json(400, { error: 'Invisible characters', errorKey: 'errors.usernameInvalidCharacters' }),
      'Usernames cannot contain invisible, control or formatting characters.',
    ],
    [json(400, { error: 'A server text', errorKey: 'errors.noSuchKey' }), 'A server text'],
    [new Response(null, { status: 500 }), 'Signup failed'],
  ])('shows why the sign-up failed (%#)', async (answer, message) => {
    signupServer({ answer });
    const { router } = renderApp('/signup');
    const user = await fillForm();
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(router.state.location.pathname).toBe('/signup');
  });

  it('opens the terms and the privacy policy in a new tab', async () => {
    signupServer();
    renderApp('/signup');
    const box = (await screen.findByRole('checkbox')).closest('div') as HTMLElement;
    const terms = within(box).getByRole('link', { name: /Terms of Service/ });
    const privacy = within(box).getByRole('link', { name: /Privacy Policy/ });
    expect(terms).toHaveAttribute('href', '/terms-of-service');
    expect(privacy).toHaveAttribute('href', '/privacy-policy');
    for (const link of [terms, privacy]) {
      expect(link).toHaveAttribute('target', '_blank');
      expect(link).toHaveAttribute('rel', expect.stringContaining('noopener'));
    }
  });

  it('offers Twitch, YouTube and Discord sign-up', async () => {
    signupServer();
    renderApp('/signup');
    expect(await screen.findByRole('link', { name: 'Sign up with Twitch' })).toHaveAttribute(
      'href',
      '/api/auth/twitch?action=signup',
    );
    expect(screen.getByRole('link', { name: 'Sign up with YouTube' })).toHaveAttribute(
      'href',
      '/api/auth/youtube?action=signup',
    );
    expect(screen.getByRole('link', { name: 'Sign up with Discord' })).toHaveAttribute(
      'href',
      '/api/auth/discord?action=signup',
    );
  });
});

describe('bot check', () => {
  it('is disabled without a site key: no script, token ""', async () => {
    const fetchMock = signupServer({ siteKey: null });
    renderApp('/signup');
    const user = await fillForm();
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await screen.findByRole('heading', { level: 1, name: 'Account created' });
    expect(document.querySelector('script[src*="recaptcha"]')).toBeNull();
    expect(JSON.parse(String(signupCalls(fetchMock)[0]?.[1]?.body)).recaptchaToken).toBe('');
  });

  it("loads Google's checkbox with the site key and the page language, and blocks the form until it is ready", async () => {
    const fetchMock = signupServer({ siteKey: 'site-key-1' });
    renderApp('/signup');
    await waitFor(() => expect(document.querySelector('script[src*="recaptcha"]')).not.toBeNull());
    const src = document.querySelector('script[src*="recaptcha"]')?.getAttribute('src') ?? '';
    expect(src).toMatch(/^https:\/\/www\.google\.com\/recaptcha\/api\.js\?render=explicit&/);
    expect(src).toContain('hl=en');
    const user = await fillForm();
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('reCAPTCHA not ready, try again shortly');
    expect(signupCalls(fetchMock)).toHaveLength(0);
  });

  it('sends the token of the solved widget', async () => {
    let solve: (token: string) => void = () => {};
    const render = vi.fn(
      (_container: HTMLElement, params: { sitekey: string; callback?: (t: string) => void }) => {
        solve = params.callback ?? solve;
        return 0;
      },
    );
    window.grecaptcha = { render, reset: vi.fn() };
    const fetchMock = signupServer({ siteKey: 'site-key-1' });
    renderApp('/signup');
    await waitFor(() => expect(render).toHaveBeenCalled());
    expect(render.mock.calls[0]?.[1]).toMatchObject({ sitekey: 'site-key-1', theme: 'dark' });
    const user = await fillForm();
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByRole('alert')).toHaveTextContent("Tick the “I'm not a robot” box to continue.");
    act(() => solve('captcha-token'));
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await screen.findByRole('heading', { level: 1, name: 'Account created' });
    expect(JSON.parse(String(signupCalls(fetchMock)[0]?.[1]?.body)).recaptchaToken).toBe('captcha-token');
  });
});
