/**
 * Set a password (social-only account) or change it (current, new, confirmation). The two new
 * passwords must match (spec §5) before anything is sent.
 */
import { type ChangePasswordRequest, PASSWORD_MIN_LENGTH, type User } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';
import { ConfirmPasswordField, CurrentPasswordField, PasswordField } from '../auth/form-fields';
import { FormStatusAlert } from './form-status';
import { changePassword } from './profile-api';
import { useFormSave } from './use-form-save';

export function PasswordForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const { t } = useTranslation();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [newError, setNewError] = useState<string | null>(null);
  const [confirmError, setConfirmError] = useState<string | null>(null);
  const hadPassword = user.has_password;
  const { status, busy, clearStatus, save } = useFormSave('profile.errorFallback', {
    write: changePassword,
    saved: ({ user: saved }, body: ChangePasswordRequest) => {
      onSaved(saved);
      setCurrentPassword('');
      setNewPassword('');
      setConfirmation('');
      // What the member did: set a first password (no current one sent) or change it.
      return body.currentPassword === undefined
        ? t('profile.password.setDone')
        : t('profile.password.changed');
    },
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    clearStatus();
    const tooShort = newPassword.length < PASSWORD_MIN_LENGTH;
    const mismatch = newPassword !== confirmation;
    setNewError(tooShort ? t('profile.password.tooShort', { min: PASSWORD_MIN_LENGTH }) : null);
    setConfirmError(mismatch ? t('profile.password.mismatch') : null);
    if (tooShort || mismatch) return;

    const body: ChangePasswordRequest = hadPassword ? { currentPassword, newPassword } : { newPassword };
    save(body);
  };

  return (
    <form
      noValidate
      onSubmit={onSubmit}
      className="space-y-4"
      aria-label={hadPassword ? t('profile.password.changeTitle') : t('profile.password.setTitle')}
    >
      {!hadPassword && <p className="text-sm text-muted">{t('profile.password.setIntro')}</p>}
      {hadPassword && (
        <CurrentPasswordField
          label={t('profile.password.current')}
          value={currentPassword}
          onChange={setCurrentPassword}
        />
      )}
      <PasswordField
        label={t('profile.password.new')}
        name="newPassword"
        autoComplete="new-password"
        value={newPassword}
        onChange={(event) => setNewPassword(event.target.value)}
        hint={t('profile.password.newHint', { min: PASSWORD_MIN_LENGTH })}
        error={newError ?? undefined}
        required
      />
      <ConfirmPasswordField
        label={t('profile.password.confirm')}
        value={confirmation}
        onChange={setConfirmation}
        error={confirmError ?? undefined}
      />
      <FormStatusAlert status={status} />
      <Button type="submit" busy={busy}>
        {hadPassword ? t('profile.password.change') : t('profile.password.set')}
      </Button>
    </form>
  );
}
