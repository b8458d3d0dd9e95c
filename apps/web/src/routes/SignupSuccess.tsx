/**
 * After a sign-up: the server signed the new member in (issue 41 point 7), so this page welcomes
 * them and leads on to the cars. Opened without a session (a bookmark, another tab that logged
 * out), it says the account exists and leads to the log-in.
 */
import { useTranslation } from 'react-i18next';
import { LineIcon } from '../components/ui/Icon';
import { LinkButton } from '../components/ui/LinkButton';
import { useAuth } from '../features/auth/auth-context';
import { AuthFrame } from '../features/auth/form-fields';
import { displayName } from '../lib/username';

export default function SignupSuccess() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <AuthFrame eyebrow={t('signup.success.eyebrow')} title={t('screens.signupSuccess')}>
      <div className="flex items-start gap-4">
        <span className="inline-flex size-11 shrink-0 items-center justify-center rounded-full bg-success/15 text-success">
          <LineIcon className="size-6" strokeWidth="2.5">
            <path strokeLinecap="round" strokeLinejoin="round" d="m5 12.5 4.5 4.5L19 7.5" />
          </LineIcon>
        </span>
        <p className="leading-relaxed text-muted">
          {user
            ? t('signup.success.welcome', { name: displayName(user.username) })
            : t('signup.success.text')}
        </p>
      </div>
      {user ? (
        <LinkButton to="/car-selection" size="lg" className="mt-6 w-full">
          {t('signup.success.chooseCar')}
        </LinkButton>
      ) : (
        <LinkButton to="/login" size="lg" className="mt-6 w-full">
          {t('signup.success.login')}
        </LinkButton>
      )}
    </AuthFrame>
  );
}
