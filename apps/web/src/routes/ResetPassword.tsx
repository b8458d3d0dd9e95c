/** Reset password (`/reset-password/:token`): a new password twice, then a link to log in. */
import { ERROR_KEYS, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@telerace/protocol';
import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { LinkButton } from '../components/ui/LinkButton';
import { useAuthRequest } from '../features/auth/auth-form';
import {
  AuthFrame,
  BackToLogin,
  ConfirmPasswordField,
  NewPasswordField,
  SubmitButton,
} from '../features/auth/form-fields';
import { ApiError, apiFetch } from '../lib/api';

interface FieldErrors {
  password?: string;
  confirmation?: string;
}

export default function ResetPassword() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [tokenInvalid, setTokenInvalid] = useState(false);
  const [done, setDone] = useState(false);
  const { busy, formError, send } = useAuthRequest(
    'reset.failed',
    async (newPassword: string) => {
      await apiFetch('/reset-password', { method: 'POST', json: { token, newPassword } });
      setDone(true);
    },
    {
      onFailure: (error) =>
        setTokenInvalid(error instanceof ApiError && error.errorKey === ERROR_KEYS.resetTokenInvalid),
    },
  );
  const passwordRef = useRef<HTMLInputElement>(null);
  const confirmationRef = useRef<HTMLInputElement>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const errors: FieldErrors = {};
    if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
      errors.password = t('auth.validation.passwordLength', {
        min: PASSWORD_MIN_LENGTH,
        max: PASSWORD_MAX_LENGTH,
      });
    } else if (confirmation !== password) {
      errors.confirmation = t('reset.mismatch');
    }
    setFieldErrors(errors);
    if (errors.password) {
      passwordRef.current?.focus();
      return;
    }
    if (errors.confirmation) {
      confirmationRef.current?.focus();
      return;
    }
    send(password);
  }

  if (done) {
    return (
      <AuthFrame title={t('screens.resetPassword')}>
        <Alert tone="success" title={t('reset.successTitle')}>
          {t('reset.success')}
        </Alert>
        <LinkButton to="/login" size="lg" className="mt-6 w-full">
          {t('reset.login')}
        </LinkButton>
      </AuthFrame>
    );
  }

  return (
    <AuthFrame title={t('screens.resetPassword')} intro={t('reset.intro')}>
      <form noValidate onSubmit={onSubmit} className="space-y-5">
        {formError && (
          <Alert tone="error">
            {formError}
            {tokenInvalid && (
              <>
                {' '}
                <Link to="/forgot-password" className="font-semibold">
                  {t('reset.requestNew')}
                </Link>
              </>
            )}
          </Alert>
        )}
        <NewPasswordField
          ref={passwordRef}
          label={t('reset.newPassword')}
          value={password}
          error={fieldErrors.password}
          disabled={busy}
          onChange={setPassword}
        />
        <ConfirmPasswordField
          ref={confirmationRef}
          label={t('reset.confirmPassword')}
          maxLength={PASSWORD_MAX_LENGTH}
          value={confirmation}
          error={fieldErrors.confirmation}
          disabled={busy}
          onChange={setConfirmation}
        />
        <SubmitButton busy={busy} label={t('reset.submit')} busyLabel={t('reset.submitting')} />
      </form>
      <BackToLogin />
    </AuthFrame>
  );
}
