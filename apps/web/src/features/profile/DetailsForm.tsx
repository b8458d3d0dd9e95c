/**
 * Edit details (spec §5): username (the base name; the server keeps the `#id` tag), email, and
 * the current password. The email is sent only when it changed.
 */
import { type UpdateDetailsRequest, USERNAME_MAX_LENGTH, type User } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { displayName, usernameSuffix } from '../../lib/username';
import { retryUnreached } from '../../lib/write-retry';
import { CurrentPasswordField, EmailField, TextField } from '../auth/form-fields';
import { FormStatusAlert } from './form-status';
import { updateDetails } from './profile-api';
import { useFormSave } from './use-form-save';

export function DetailsForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const { t } = useTranslation();
  const [username, setUsername] = useState(() => displayName(user.username));
  const [email, setEmail] = useState(user.email ?? '');
  const [currentPassword, setCurrentPassword] = useState('');
  const [usernameError, setUsernameError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const { status, busy, clearStatus, save } = useFormSave('profile.errorFallback', {
    write: updateDetails,
    saved: ({ user: saved }) => {
      onSaved(saved);
      setUsername(displayName(saved.username));
      setEmail(saved.email ?? '');
      setCurrentPassword('');
      return t('profile.details.saved');
    },
    retry: retryUnreached,
  });
  const suffix = usernameSuffix(user.username);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    clearStatus();
    const name = username.trim();
    const nameProblem =
      name === ''
        ? t('profile.details.usernameRequired')
        : name.includes('#')
          ? t('profile.details.usernameInvalid')
          : null;
    const passwordProblem = currentPassword === '' ? t('profile.details.currentPasswordRequired') : null;
    setUsernameError(nameProblem);
    setPasswordError(passwordProblem);
    if (nameProblem || passwordProblem) return;

    const body: UpdateDetailsRequest = { username: name, currentPassword };
    const newEmail = email.trim();
    if (newEmail.toLowerCase() !== (user.email ?? '').toLowerCase())
      body.email = newEmail === '' ? null : newEmail;

    save(body);
  };

  return (
    <form noValidate onSubmit={onSubmit} className="space-y-4" aria-label={t('profile.details.title')}>
      {!user.has_password && <Alert tone="info">{t('profile.details.needsPassword')}</Alert>}
      <TextField
        label={t('profile.details.username')}
        name="username"
        autoComplete="username"
        maxLength={USERNAME_MAX_LENGTH}
        value={username}
        onChange={(event) => setUsername(event.target.value)}
        hint={
          suffix
            ? t('profile.details.usernameHint', { max: USERNAME_MAX_LENGTH, suffix })
            : t('profile.details.usernameHintNoSuffix', { max: USERNAME_MAX_LENGTH })
        }
        error={usernameError ?? undefined}
        required
      />
      <EmailField
        label={t('profile.details.email')}
        name="email"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <CurrentPasswordField
        label={t('profile.details.currentPassword')}
        value={currentPassword}
        onChange={setCurrentPassword}
        hint={t('profile.details.currentPasswordHint')}
        error={passwordError ?? undefined}
        disabled={!user.has_password}
      />
      <FormStatusAlert status={status} />
      <Button type="submit" busy={busy} disabled={!user.has_password}>
        {t('profile.details.save')}
      </Button>
    </form>
  );
}
