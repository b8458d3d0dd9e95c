/** After a social sign-up: the member agrees to the terms, then goes where the login was headed. */
import { UserResponse } from '@telerace/protocol';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { useAuth } from '../features/auth/auth-context';
import { useAuthRequest, useTermsAgreement } from '../features/auth/auth-form';
import { AuthFrame, SubmitButton, TermsCheckbox } from '../features/auth/form-fields';
import { FINAL_DESTINATION_KEY, safeInternalPath } from '../features/auth/paths';
import { authFetch } from '../lib/auth-client';
import { displayName } from '../lib/username';

/** The stored destination (read once), or `/`. */
function takeFinalDestination(): string {
  try {
    const stored = window.sessionStorage.getItem(FINAL_DESTINATION_KEY);
    window.sessionStorage.removeItem(FINAL_DESTINATION_KEY);
    return safeInternalPath(stored);
  } catch {
    return '/';
  }
}

export default function CompleteRegistration() {
  const { t } = useTranslation();
  const { user, setUser } = useAuth();
  const navigate = useNavigate();
  const terms = useTermsAgreement();
  const { busy, formError, setFormError, send } = useAuthRequest('completeRegistration.failed', async () => {
    const { user: updated } = await authFetch(
      '/auth/complete-registration',
      { method: 'POST' },
      UserResponse,
    );
    setUser(updated);
    navigate(takeFinalDestination(), { replace: true });
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!terms.accept()) {
      setFormError(t('auth.validation.termsRequired'));
      return;
    }
    send(undefined);
  }

  return (
    <AuthFrame
      eyebrow={t('completeRegistration.eyebrow')}
      title={t('completeRegistration.greeting', { name: displayName(user?.username ?? '') })}
      intro={t('completeRegistration.intro')}
    >
      <form noValidate onSubmit={onSubmit} className="space-y-5">
        {formError && <Alert tone="error">{formError}</Alert>}
        <TermsCheckbox {...terms.checkbox} disabled={busy} />
        <SubmitButton
          busy={busy}
          label={t('completeRegistration.submit')}
          busyLabel={t('completeRegistration.submitting')}
        />
      </form>
    </AuthFrame>
  );
}
