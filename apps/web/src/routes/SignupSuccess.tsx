/** After a sign-up: the account exists; the next step is logging in. */
import { useTranslation } from 'react-i18next';
import { LineIcon } from '../components/ui/Icon';
import { LinkButton } from '../components/ui/LinkButton';
import { AuthFrame } from '../features/auth/form-fields';

export default function SignupSuccess() {
  const { t } = useTranslation();
  return (
    <AuthFrame eyebrow={t('signup.success.eyebrow')} title={t('screens.signupSuccess')}>
      <div className="flex items-start gap-4">
        <span className="inline-flex size-11 shrink-0 items-center justify-center rounded-full bg-success/15 text-success">
          <LineIcon className="size-6" strokeWidth="2.5">
            <path strokeLinecap="round" strokeLinejoin="round" d="m5 12.5 4.5 4.5L19 7.5" />
          </LineIcon>
        </span>
        <p className="leading-relaxed text-muted">{t('signup.success.text')}</p>
      </div>
      <LinkButton to="/login" size="lg" className="mt-6 w-full">
        {t('signup.success.login')}
      </LinkButton>
    </AuthFrame>
  );
}
