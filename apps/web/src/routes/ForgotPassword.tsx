/** Forgot password: asks for an email and always answers the same way (no account enumeration). */
import { Email } from '@telerace/protocol';
import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../components/ui/Alert';
import { useAuthRequest } from '../features/auth/auth-form';
import { AccountEmailField, AuthFrame, BackToLogin, SubmitButton } from '../features/auth/form-fields';
import { apiFetch } from '../lib/api';

export default function ForgotPassword() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const { busy, formError, send } = useAuthRequest('forgot.failed', async (value: string) => {
    await apiFetch('/forgot-password', { method: 'POST', json: { email: value } });
    setSentTo(value);
  });
  const inputRef = useRef<HTMLInputElement>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = email.trim();
    const error =
      value === ''
        ? t('auth.validation.emailRequired')
        : Email.safeParse(value).success
          ? undefined
          : t('auth.validation.emailInvalid');
    setFieldError(error);
    if (error) {
      inputRef.current?.focus();
      return;
    }
    send(value);
  }

  if (sentTo !== null) {
    return (
      <AuthFrame title={t('screens.forgotPassword')}>
        <Alert tone="success" title={t('forgot.sentTitle')}>
          {t('forgot.sent', { email: sentTo })}
        </Alert>
        <BackToLogin />
      </AuthFrame>
    );
  }

  return (
    <AuthFrame title={t('screens.forgotPassword')} intro={t('forgot.intro')}>
      <form noValidate onSubmit={onSubmit} className="space-y-5">
        {formError && <Alert tone="error">{formError}</Alert>}
        <AccountEmailField
          ref={inputRef}
          value={email}
          error={fieldError}
          disabled={busy}
          onChange={setEmail}
        />
        <SubmitButton busy={busy} label={t('forgot.submit')} busyLabel={t('forgot.submitting')} />
      </form>
      <BackToLogin />
    </AuthFrame>
  );
}
