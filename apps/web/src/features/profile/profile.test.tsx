import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../i18n';
import { AboutForm } from './AboutForm';
import { DangerZone } from './DangerZone';
import { DetailsForm } from './DetailsForm';
import { LinkedAccounts } from './LinkedAccounts';
import { PasswordForm } from './PasswordForm';
import { callsTo, json, member, renderSignedIn, stubFetch } from './testing';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('DetailsForm', () => {
  it('sends the base username and no email when the email did not change', async () => {
    const saved = { ...member, username: 'turbo#12' };
    const fetchMock = stubFetch({
      'PATCH /api/me/details': () => json(200, { user: saved, message: 'Details updated' }),
    });
    const onSaved = vi.fn();
    const user = userEvent.setup();
    await renderSignedIn(<DetailsForm user={member} onSaved={onSaved} />);

    const username = screen.getByRole('textbox', { name: 'Username' });
    expect(username).toHaveValue('speedy');
    await user.clear(username);
    await user.type(username, 'turbo');
    await user.type(screen.getByLabelText('Current password'), 'old-secret');
    await user.click(screen.getByRole('button', { name: 'Save details' }));

    expect(await screen.findByRole('status')).toHaveTextContent('Your details were updated.');
    expect(callsTo(fetchMock, 'PATCH', '/api/me/details')).toEqual([
      { username: 'turbo', currentPassword: 'old-secret' },
    ]);
    expect(onSaved).toHaveBeenCalledWith(saved);
    expect(screen.getByLabelText('Current password')).toHaveValue('');
  });

  it('sends the email when it changed', async () => {
    const fetchMock = stubFetch({
      'PATCH /api/me/details': () => json(200, { user: member, message: 'ok' }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<DetailsForm user={member} onSaved={vi.fn()} />);
    const email = screen.getByRole('textbox', { name: 'Email' });
    await user.clear(email);
    await user.type(email, 'new@example.com');
    await user.type(screen.getByLabelText('Current password'), 'old-secret');
    await user.click(screen.getByRole('button', { name: 'Save details' }));
    await screen.findByRole('status');
    expect(callsTo(fetchMock, 'PATCH', '/api/me/details')).toEqual([
      { username: 'speedy', email: 'new@example.com', currentPassword: 'old-secret' },
    ]);
  });

  it("shows the server's error and sends nothing without the current password", async () => {
    const fetchMock = stubFetch({
      'PATCH /api/me/details': () => json(409, { error: 'Email or username already in use' }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<DetailsForm user={member} onSaved={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Save details' }));
    expect(screen.getByText('Enter your current password.')).toBeVisible();
    expect(fetchMock).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Current password'), 'old-secret');
    await user.click(screen.getByRole('button', { name: 'Save details' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Email or username already in use');
  });

  it('explains a reserved name in the language of the page', async () => {
    await i18n.changeLanguage('fr');
    try {
      stubFetch({
        'PATCH /api/me/details': () =>
          json(400, { error: 'This username is reserved.', errorKey: 'errors.usernameReserved' }),
      });
      const user = userEvent.setup();
      await renderSignedIn(<DetailsForm user={member} onSaved={vi.fn()} />);
      await user.type(screen.getByLabelText('Mot de passe actuel'), 'old-secret');
      await user.click(screen.getByRole('button', { name: 'Enregistrer les informations' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(
        "Ce nom d'utilisateur est réservé. Choisissez-en un autre.",
      );
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe('AboutForm', () => {
  it('rejects a non-http avatar URL and falls back to "Could not save profile" on a server failure', async () => {
    const fetchMock = stubFetch({ 'PATCH /api/me': () => json(500, { error: 'Internal' }) });
    const user = userEvent.setup();
    await renderSignedIn(<AboutForm user={member} onSaved={vi.fn()} />);
    const url = screen.getByRole('textbox', { name: 'Avatar URL' });
    await user.type(url, 'javascript:alert(1)');
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    expect(url).toHaveAccessibleDescription(expect.stringContaining('must be a web address'));
    expect(fetchMock).not.toHaveBeenCalled();

    await user.clear(url);
    await user.type(url, 'https://img.example.com/me.png');
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not save profile');
    expect(callsTo(fetchMock, 'PATCH', '/api/me')).toEqual([
      { bio: member.bio, avatar_url: 'https://img.example.com/me.png' },
    ]);
  });

  it('counts the bio characters', async () => {
    const user = userEvent.setup();
    await renderSignedIn(<AboutForm user={{ ...member, bio: '' }} onSaved={vi.fn()} />);
    await user.type(screen.getByRole('textbox', { name: 'Bio' }), 'Hello');
    expect(screen.getByTestId('bio-counter')).toHaveTextContent('5 / 500 characters');
  });
});

describe('PasswordForm', () => {
  it('says the new passwords do not match and sends nothing', async () => {
    const fetchMock = stubFetch({});
    const user = userEvent.setup();
    await renderSignedIn(<PasswordForm user={member} onSaved={vi.fn()} />);
    await user.type(screen.getByLabelText('Current password'), 'old-secret');
    await user.type(screen.getByLabelText('New password'), 'brand-new-1');
    await user.type(screen.getByLabelText('Confirm the new password'), 'brand-new-2');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(screen.getByText('New passwords do not match')).toBeVisible();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sets a first password without a current one', async () => {
    const socialOnly = { ...member, has_password: false };
    const fetchMock = stubFetch({
      'POST /api/me/password': () => json(200, { message: 'ok', user: member }),
    });
    const user = userEvent.setup();
    await renderSignedIn(<PasswordForm user={socialOnly} onSaved={vi.fn()} />);
    expect(screen.queryByLabelText('Current password')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('New password'), 'brand-new-1');
    await user.type(screen.getByLabelText('Confirm the new password'), 'brand-new-1');
    await user.click(screen.getByRole('button', { name: 'Set password' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Your password was set.');
    expect(callsTo(fetchMock, 'POST', '/api/me/password')).toEqual([{ newPassword: 'brand-new-1' }]);
  });
});

describe('LinkedAccounts', () => {
  it('disconnects a linked platform only after confirmation, and links the others', async () => {
    const fetchMock = stubFetch({
      'POST /api/me/disconnect': () => json(200, { user: { ...member, twitch_id: null } }),
    });
    const onSaved = vi.fn();
    const user = userEvent.setup();
    await renderSignedIn(<LinkedAccounts user={member} onSaved={onSaved} />);
    expect(screen.getByRole('link', { name: 'Link your YouTube account' })).toHaveAttribute(
      'href',
      '/api/connect/youtube?token=access-token-1',
    );
    await user.click(screen.getByRole('button', { name: 'Disconnect Twitch' }));
    expect(fetchMock).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Disconnect' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(callsTo(fetchMock, 'POST', '/api/me/disconnect')).toEqual([{ platform: 'twitch' }]);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('shows the fallback when the disconnect fails', async () => {
    stubFetch({ 'POST /api/me/disconnect': () => Promise.reject(new TypeError('Failed to fetch')) });
    const user = userEvent.setup();
    await renderSignedIn(<LinkedAccounts user={member} onSaved={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Disconnect Twitch' }));
    await user.click(screen.getByRole('button', { name: 'Disconnect' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to disconnect the platform account');
  });
});

describe('DangerZone', () => {
  it('deletes the account only once the reader confirms it is permanent and types the password, then logs out', async () => {
    const fetchMock = stubFetch({ 'DELETE /api/me': () => json(200, { message: 'Account deleted' }) });
    const user = userEvent.setup();
    const { session } = await renderSignedIn(<DangerZone />);
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete your account?' });
    const confirm = within(dialog).getByRole('button', { name: 'Delete forever' });
    expect(confirm).toBeDisabled();
    await user.click(within(dialog).getByRole('checkbox', { name: 'I understand this is permanent' }));
    expect(confirm).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Your current password'), 'old-secret');
    expect(callsTo(fetchMock, 'DELETE', '/api/me')).toEqual([]);
    await user.click(confirm);
    // Logged out: the session is gone, and the server was told.
    await waitFor(() => expect(session().user).toBeNull());
    expect(callsTo(fetchMock, 'POST', '/api/logout')).toHaveLength(1);
    expect(callsTo(fetchMock, 'DELETE', '/api/me')).toEqual([{ currentPassword: 'old-secret' }]);
  });

  it('works from the keyboard: Enter in the password field deletes once confirmed', async () => {
    const fetchMock = stubFetch({ 'DELETE /api/me': () => json(200, { message: 'Account deleted' }) });
    const user = userEvent.setup();
    const { session } = await renderSignedIn(<DangerZone />);
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete your account?' });
    within(dialog).getByRole('checkbox', { name: 'I understand this is permanent' }).focus();
    await user.keyboard(' ');
    await user.tab();
    expect(within(dialog).getByLabelText('Your current password')).toHaveFocus();
    await user.keyboard('old-secret{Enter}');
    // Logged out: the session is gone, and the server was told.
    await waitFor(() => expect(session().user).toBeNull());
    expect(callsTo(fetchMock, 'POST', '/api/logout')).toHaveLength(1);
    expect(callsTo(fetchMock, 'DELETE', '/api/me')).toEqual([{ currentPassword: 'old-secret' }]);
  });

  it('shows a wrong password on the field, keeps the dialog and the session', async () => {
    stubFetch({
      'DELETE /api/me': () =>
        json(400, { error: 'Current password is incorrect', errorKey: 'errors.wrongCurrentPassword' }),
    });
    const user = userEvent.setup();
    const { session } = await renderSignedIn(<DangerZone />);
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await user.click(screen.getByRole('checkbox', { name: 'I understand this is permanent' }));
    const password = screen.getByLabelText('Your current password');
    await user.type(password, 'not-it');
    await user.click(screen.getByRole('button', { name: 'Delete forever' }));
    await waitFor(() => expect(password).toHaveAttribute('aria-invalid', 'true'));
    expect(password).toHaveAccessibleDescription('The current password is wrong.');
    expect(password).toHaveFocus();
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    expect(session().user).not.toBeNull();
  });

  it('a password-less account is told it needs a recent sign-in, and sends no password', async () => {
    const fetchMock = stubFetch({
      'DELETE /api/me': () =>
        json(403, {
          error: 'Please sign in again, then delete your account within 5 minutes.',
          errorKey: 'errors.recentSignInRequired',
        }),
    });
    const user = userEvent.setup();
    const { session } = await renderSignedIn(<DangerZone />, { ...member, has_password: false });
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).queryByLabelText('Your current password')).not.toBeInTheDocument();
    expect(dialog).toHaveTextContent('Your account has no password');
    await user.click(within(dialog).getByRole('checkbox', { name: 'I understand this is permanent' }));
    await user.click(within(dialog).getByRole('button', { name: 'Delete forever' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'For your safety, log out and log in again, then delete your account within 5 minutes.',
    );
    expect(callsTo(fetchMock, 'DELETE', '/api/me')).toEqual([{}]);
    expect(session().user).not.toBeNull();
  });

  it('keeps the session and says so when the deletion fails', async () => {
    stubFetch({ 'DELETE /api/me': () => json(500, { error: 'Internal' }) });
    const user = userEvent.setup();
    const { session } = await renderSignedIn(<DangerZone />);
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await user.click(screen.getByRole('checkbox', { name: 'I understand this is permanent' }));
    await user.type(screen.getByLabelText('Your current password'), 'old-secret');
    await user.click(screen.getByRole('button', { name: 'Delete forever' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Error deleting account');
    expect(session().user).not.toBeNull();
  });

  it('has the same texts in French', async () => {
    stubFetch({});
    await i18n.changeLanguage('fr');
    try {
      const user = userEvent.setup();
      await renderSignedIn(<DangerZone />);
      await user.click(screen.getByRole('button', { name: 'Supprimer mon compte' }));
      expect(screen.getByLabelText('Votre mot de passe actuel')).toBeInTheDocument();
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
