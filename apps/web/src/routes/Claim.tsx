/**
 * Claim a raffle prize (spec §2 "Claim", §4 raffle prize, §8 claim errors; issue 13): a short
 * explanation and the three social sign-in buttons with `action=claim`. The server checks that the
 * exact identity signing in won an unexpired prize and comes back through /auth/callback to the
 * car, or here with `?error=no_win_found|server_error|no_car_free`.
 */
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { AuthFrame, Divider } from '../features/auth/form-fields';
import { SocialButtons } from '../features/auth/SocialButtons';

const CLAIM_ERRORS = ['no_win_found', 'server_error', 'no_car_free'] as const;
const STEPS = ['pick', 'signIn', 'drive'] as const;

/** The i18n key of the error the claim came back with, if any (an unknown one reads as a server error). */
export function claimErrorKey(params: URLSearchParams): string | null {
  const error = params.get('error');
  if (error === null) return null;
  const known = CLAIM_ERRORS.find((name) => name === error) ?? 'server_error';
  return `claim.errors.${known}`;
}

export default function Claim() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const errorKey = claimErrorKey(params);
  return (
    <AuthFrame eyebrow={t('claim.eyebrow')} title={t('screens.claim')} intro={t('claim.intro')}>
      {errorKey && (
        // No car free is not a refusal: the prize is still the winner's.
        <Alert tone={errorKey === 'claim.errors.no_car_free' ? 'warning' : 'error'} className="mb-5">
          {t(errorKey)}
        </Alert>
      )}
      <ol className="list-decimal space-y-1.5 pl-5 text-sm">
        {STEPS.map((step) => (
          <li key={step}>{t(`claim.steps.${step}`)}</li>
        ))}
      </ol>
      <Divider>{t('claim.buttonsTitle')}</Divider>
      <SocialButtons action="claim" />
    </AuthFrame>
  );
}
