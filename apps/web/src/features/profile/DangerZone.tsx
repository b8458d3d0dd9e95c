/**
 * Account deletion (spec §2: permanent). The confirmation dialog only enables the delete button
 * once the reader ticks "I understand this is permanent" and, when the account has a password,
 * types it again (the server checks it; an account without one must have signed in recently).
 * Then the session ends at /login.
 */
import { useMutation } from '@tanstack/react-query';
import { ERROR_KEYS } from '@telerace/protocol';
import { type FormEvent, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import { ApiError } from '../../lib/api';
import { useAuth } from '../auth/auth-context';
import { apiErrorText } from '../auth/error-text';
import { CurrentPasswordField } from '../auth/form-fields';
import { deleteAccount } from './profile-api';

const isWrongPassword = (failure: unknown) =>
  failure instanceof ApiError && failure.errorKey === ERROR_KEYS.wrongCurrentPassword;

export function DangerZone() {
  const { t, i18n } = useTranslation();
  const { logout, user } = useAuth();
  const hasPassword = user?.has_password ?? true;
  const checkboxId = useId();
  const formId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const [understood, setUnderstood] = useState(false);
  const [password, setPassword] = useState('');
  const deletion = useMutation({
    mutationFn: deleteAccount,
    onError: (failure) => {
      // After the re-render that marks the field invalid: the reader types it again at once.
      if (isWrongPassword(failure)) setTimeout(() => passwordRef.current?.focus());
    },
    // The session ends with the account; the button stays busy until /login shows.
    onSuccess: () => logout(),
  });
  const busy = deletion.isPending || deletion.isSuccess;
  const failure = deletion.error;
  const failureText = failure ? apiErrorText(t, i18n, failure, 'profile.danger.failed') : null;
  const wrongPassword = hasPassword && isWrongPassword(failure);
  const passwordError = wrongPassword ? failureText : null;
  const error = wrongPassword ? null : failureText;
  const ready = understood && (!hasPassword || password !== '');

  const close = () => {
    setOpen(false);
    setUnderstood(false);
    setPassword('');
    deletion.reset();
  };

  const onConfirm = (event: FormEvent) => {
    event.preventDefault();
    if (!ready || busy) return;
    deletion.mutate(hasPassword ? { currentPassword: password } : {});
  };

  return (
    <div className="space-y-4">
      <p className="text-sm text-muted">{t('profile.danger.text')}</p>
      <Button variant="danger" onClick={() => setOpen(true)}>
        {t('profile.danger.delete')}
      </Button>
      <Modal
        open={open}
        onClose={close}
        size="sm"
        title={t('profile.danger.confirmTitle')}
        description={t('profile.danger.confirmText')}
        footer={
          <>
            <Button variant="secondary" onClick={close}>
              {t('profile.cancel')}
            </Button>
            <Button type="submit" form={formId} variant="danger" busy={busy} disabled={!ready}>
              {t('profile.danger.confirm')}
            </Button>
          </>
        }
      >
        <form id={formId} noValidate onSubmit={onConfirm} className="space-y-3">
          <div className="flex items-start gap-3">
            <input
              id={checkboxId}
              type="checkbox"
              checked={understood}
              onChange={(event) => setUnderstood(event.target.checked)}
              className="mt-0.5 size-4 shrink-0 accent-danger"
            />
            <label htmlFor={checkboxId} className="text-sm font-semibold">
              {t('profile.danger.understand')}
            </label>
          </div>
          {hasPassword ? (
            <CurrentPasswordField
              ref={passwordRef}
              label={t('profile.danger.password')}
              value={password}
              onChange={(value) => {
                setPassword(value);
                if (wrongPassword) deletion.reset();
              }}
              error={passwordError ?? undefined}
            />
          ) : (
            <p className="text-sm text-muted">{t('profile.danger.noPassword')}</p>
          )}
          {error && <Alert tone="error">{error}</Alert>}
        </form>
      </Modal>
    </div>
  );
}
