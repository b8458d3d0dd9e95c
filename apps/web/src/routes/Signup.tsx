/** Sign-up (spec §2, §5): email, username, password, terms, bot check, or a social account. */
import { Email, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH } from '@telerace/protocol';
import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { useAuth } from '../features/auth/auth-context';
import { focusFirstInvalid, useAuthRequest, useTermsAgreement } from '../features/auth/auth-form';
import { BotCheck, botCheckError, useBotCheck } from '../features/auth/BotCheck';
import {
  AccountEmailField,
  AuthFrame,
  NewPasswordField,
  SubmitButton,
  TermsCheckbox,
  TextField,
} from '../features/auth/form-fields';
import { SocialSignIn } from '../features/auth/SocialButtons';

interface FieldErrors {
  email?: string;
  username?: string;
  password?: string;
}

export default function Signup() {
  const { t } = useTranslation();
  const { signup } = useAuth();
  const botCheck = useBotCheck();
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const terms = useTermsAgreement();
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const { busy, formError, setFormError, send } = useAuthRequest('errors.signupFailed', signup, {
    onFailure: botCheck.reset,
    refusal: () => botCheckError(t, botCheck),
  });
  const formRef = useRef<HTMLFormElement>(null);

  function validate(): FieldErrors {
    const errors: FieldErrors = {};
    if (email.trim() === '') errors.email = t('auth.validation.emailRequired');
    else if (!Email.safeParse(email).success) errors.email = t('auth.validation.emailInvalid');
    const name = username.trim();
    if (name === '') errors.username = t('signup.usernameRequired');
    else if (name.length > USERNAME_MAX_LENGTH) {
      errors.username = t('signup.usernameTooLong', { max: USERNAME_MAX_LENGTH });
    } else if (name.includes('#')) errors.username = t('signup.usernameInvalid');
    if (password === '') errors.password = t('auth.validation.passwordRequired');
    else if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
      errors.password = t('auth.validation.passwordLength', {
        min: PASSWORD_MIN_LENGTH,
        max: PASSWORD_MAX_LENGTH,
      });
    }
    return errors;
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const errors = validate();
    setFieldErrors(errors);
    const agreed = terms.accept();
    if (focusFirstInvalid(formRef, ['email', 'username', 'password'], errors)) {
      setFormError(null);
      return;
    }
    if (!agreed) {
      setFormError(t('auth.validation.termsRequired'));
      return;
    }
    send({ email: email.trim(), username: username.trim(), password, recaptchaToken: botCheck.token });
  }

  return (
    <AuthFrame eyebrow={t('signup.eyebrow')} title={t('screens.signup')} intro={t('signup.intro')}>
      <form ref={formRef} noValidate onSubmit={onSubmit} className="space-y-5">
        {formError && <Alert tone="error">{formError}</Alert>}
        <AccountEmailField value={email} error={fieldErrors.email} disabled={busy} onChange={setEmail} />
        <TextField
          label={t('signup.username')}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          maxLength={USERNAME_MAX_LENGTH}
          value={username}
          error={fieldErrors.username}
          disabled={busy}
          hint={t('signup.usernameHint', { max: USERNAME_MAX_LENGTH })}
          aside={
            <span className="text-xs text-muted tabular-nums">
              <span aria-hidden="true">
                {username.length}/{USERNAME_MAX_LENGTH}
              </span>
              <span className="sr-only">
                {t('signup.usernameCounter', { count: username.length, max: USERNAME_MAX_LENGTH })}
              </span>
            </span>
          }
          onChange={(event) => setUsername(event.target.value)}
        />
        <NewPasswordField
          label={t('auth.password')}
          name="password"
          value={password}
          error={fieldErrors.password}
          disabled={busy}
          onChange={setPassword}
        />
        <TermsCheckbox {...terms.checkbox} disabled={busy} />
        <BotCheck check={botCheck} />
        <SubmitButton busy={busy} label={t('signup.submit')} busyLabel={t('signup.submitting')} />
      </form>
      <SocialSignIn action="signup" title={t('signup.socialTitle')} />
      <p className="mt-6 text-center text-sm text-muted">
        {t('signup.haveAccount')}{' '}
        <Link to="/login" className="font-semibold">
          {t('signup.loginLink')}
        </Link>
      </p>
    </AuthFrame>
  );
}
