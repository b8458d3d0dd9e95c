/** After a social sign-up: the member agrees to the terms, then goes where the login was headed. */
import { UserResponse } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { Button } from '../components/ui/Button';
import { useAuth } from '../features/auth/auth-context';
import { apiErrorText } from '../features/auth/error-text';
import { AuthFrame, TermsCheckbox } from '../features/auth/form-fields';
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
  const { t, i18n } = useTranslation();
  const { user, setUser } = useAuth();
  const navigate = useNavigate();
  const [agreed, setAgreed] = useState(false);
  const [termsInvalid, setTermsInvalid] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!agreed) {
      setTermsInvalid(true);
      setFormError(t('auth.validation.termsRequired'));
      return;
    }
    setFormError(null);
    setBusy(true);
    try {
      const { user: updated } = await authFetch(
        '/auth/complete-registration',
        { method: 'POST' },
        UserResponse,
      );
      setUser(updated);
      navigate(takeFinalDestination(), { replace: true });
    } catch (error) {
      setFormError(apiErrorText(t, i18n, error, 'completeRegistration.failed'));
      setBusy(false);
    }
  }

  return (
    <AuthFrame
      eyebrow={t('completeRegistration.eyebrow')}
      title={t('completeRegistration.greeting', { name: displayName(user?.username ?? '') })}
      intro={t('completeRegistration.intro')}
    >
      <form noValidate onSubmit={onSubmit} className="space-y-5">
        {formError && <Alert tone="error">{formError}</Alert>}
        <TermsCheckbox
          checked={agreed}
          disabled={busy}
          invalid={termsInvalid}
          onChange={(checked) => {
            setAgreed(checked);
            if (checked) setTermsInvalid(false);
          }}
        />
        <Button type="submit" size="lg" className="w-full" busy={busy}>
          {busy ? t('completeRegistration.submitting') : t('completeRegistration.submit')}
        </Button>
      </form>
    </AuthFrame>
  );
}
