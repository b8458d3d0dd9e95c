import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, renderApp, resetBrowser, stubServer } from '../test/app';

beforeEach(async () => {
  await resetBrowser();
});

describe('forgot password', () => {
  it.each([
    [json(200, { message: 'If an account exists, an email was sent.' })],
    [json(200, { message: 'anything' })],
  ])('always shows the same confirmation (%#)', async (answer) => {
    const user = userEvent.setup();
    const fetchMock = stubServer({
      session: null,
      handle: ({ url }) => (url === '/api/forgot-password' ? answer : undefined),
    });
    renderApp('/forgot-password');
    await user.type(await screen.findByLabelText('Email'), 'who@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText(/If an account exists for who@example.com/)).toBeInTheDocument();
    const call = fetchMock.mock.calls.find(([url]) => url === '/api/forgot-password');
    expect(JSON.parse(String(call?.[1]?.body))).toEqual({ email: 'who@example.com' });
  });

  it('falls back to "An unexpected error occurred." when the call fails without a message', async () => {
    const user = userEvent.setup();
    stubServer({
      session: null,
      handle: ({ url }) => (url === '/api/forgot-password' ? new Response(null, { status: 502 }) : undefined),
    });
    renderApp('/forgot-password');
    await user.type(await screen.findByLabelText('Email'), 'who@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('An unexpected error occurred.');
  });
});

describe('reset password', () => {
  function resetServer(answer: Response) {
    return stubServer({
      session: null,
      handle: ({ url }) => (url === '/api/reset-password' ? answer : undefined),
    });
  }

  async function submit(password: string, confirmation: string) {
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('New password'), password);
    await user.type(screen.getByLabelText('Confirm the new password'), confirmation);
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
  }

  it('refuses passwords that do not match', async () => {
    const fetchMock = resetServer(json(200, { message: 'ok' }));
    renderApp('/reset-password/tok-1');
    await submit('new password 1', 'new password 2');
    expect(screen.getByLabelText('Confirm the new password')).toHaveAccessibleDescription(
      'Passwords do not match',
    );
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/reset-password')).toBe(false);
  });

  it('sends the token from the address and links to log in afterwards', async () => {
    const fetchMock = resetServer(json(200, { message: 'Password updated' }));
    renderApp('/reset-password/tok-1');
    await submit('new password 1', 'new password 1');
    expect(
      await screen.findByText('Your password has been reset. You can now log in with it.'),
    ).toBeInTheDocument();
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'Log in' })).toHaveAttribute(
      'href',
      '/login',
    );
    const call = fetchMock.mock.calls.find(([url]) => url === '/api/reset-password');
    expect(JSON.parse(String(call?.[1]?.body))).toEqual({ token: 'tok-1', newPassword: 'new password 1' });
  });

  it.each([
    [
      json(400, { error: 'Invalid or expired token', errorKey: 'errors.resetTokenInvalid' }),
      'This reset link is invalid or has expired. Request a new one.',
    ],
    [json(400, { error: 'Some server text' }), 'Some server text'],
    [new Response(null, { status: 502 }), 'An unexpected error occurred.'],
  ])('shows why the reset failed (%#)', async (answer, message) => {
    resetServer(answer);
    renderApp('/reset-password/tok-1');
    await submit('new password 1', 'new password 1');
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
  });
});
