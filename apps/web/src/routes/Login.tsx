/**
 * Log in (spec §2): email, password, bot check, forgot-password link, social login. Shows why the
 * user landed here: a message passed by logout (session expired…) or a failed social login
 * (`?auth=failed&reason=…`, `?error=auth_failed`).
 */
import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { type LoginRouteState, useAuth } from '../features/auth/auth-context';
import { focusFirstInvalid, useAuthRequest } from '../features/auth/auth-form';
import { BotCheck, botCheckError, useBotCheck } from '../features/auth/BotCheck';
import { AccountEmailField, AuthFrame, PasswordField, SubmitButton } from '../features/auth/form-fields';
import { SocialSignIn } from '../features/auth/SocialButtons';
import type { TranslationKey } from '../i18n';

const PERMISSION_REASONS = ['youtube_permission', 'twitch_permission', 'discord_permission'] as const;

/** The i18n key of the error a failed social login came back with, if any. */
export function redirectErrorKey(params: URLSearchParams): TranslationKey | null {
  if (params.get('auth') === 'failed') {
    const reason = PERMISSION_REASONS.find((name) => name === params.get('reason'));
    return reason ? `login.reasons.${reason}` : 'login.reasons.generic';
  }
  if (params.get('error') === 'auth_failed') return 'login.reasons.generic';
  return null;
}

function sessionMessage(state: unknown): TranslationKey | null {
  const message = (state as LoginRouteState | null)?.message;
  // AuthProvider puts one of its SESSION_MESSAGES there (each has a text: i18n/runtime-keys.test.ts).
  return typeof message === 'string' && message !== '' ? (message as TranslationKey) : null;
}

interface FieldErrors {
  email?: string;
  password?: string;
}

export default function Login() {
  const { t } = useTranslation();
  const { login } = useAuth();
  const location = useLocation();
  const [params] = useSearchParams();
  const botCheck = useBotCheck();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const { busy, formError, setFormError, send } = useAuthRequest(
    'login.failed',
    (input: { email: string; password: string; recaptchaToken: string }) =>
      login(input.email, input.password, input.recaptchaToken),
    { onFailure: botCheck.reset, refusal: () => botCheckError(t, botCheck) },
  );
  const formRef = useRef<HTMLFormElement>(null);
  const notice = sessionMessage(location.state);
  const redirectError = redirectErrorKey(params);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const errors: FieldErrors = {};
    if (email.trim() === '') errors.email = t('auth.validation.emailRequired');
    if (password === '') errors.password = t('auth.validation.passwordRequired');
    setFieldErrors(errors);
    if (focusFirstInvalid(formRef, ['email', 'password'], errors)) {
      setFormError(null);
      return;
    }
    send({ email: email.trim(), password, recaptchaToken: botCheck.token });
  }

  return (
    <AuthFrame eyebrow={t('login.eyebrow')} title={t('screens.login')} intro={t('login.intro')}>
      <form ref={formRef} noValidate onSubmit={onSubmit} className="space-y-5">
        {notice && !formError && <Alert tone="warning">{t(notice)}</Alert>}
        {redirectError && !formError && <Alert tone="error">{t(redirectError)}</Alert>}
        {formError && <Alert tone="error">{formError}</Alert>}
        <AccountEmailField value={email} error={fieldErrors.email} disabled={busy} onChange={setEmail} />
        <PasswordField
          label={t('auth.password')}
          name="password"
          autoComplete="current-password"
          required
          value={password}
          error={fieldErrors.password}
          disabled={busy}
          aside={
            <Link to="/forgot-password" className="text-sm font-semibold">
              {t('login.forgot')}
            </Link>
          }
          onChange={(event) => setPassword(event.target.value)}
        />
        <BotCheck check={botCheck} />
        <SubmitButton busy={busy} label={t('login.submit')} busyLabel={t('login.submitting')} />
      </form>
      <SocialSignIn action="login" title={t('login.socialTitle')} />
      <p className="mt-6 text-center text-sm text-muted">
        {t('login.noAccount')}{' '}
        <Link to="/signup" className="font-semibold">
          {t('login.signupLink')}
        </Link>
      </p>
    </AuthFrame>
  );
}
