/**
 * Claim a raffle prize (spec §2 "Claim", §4 raffle prize, §8 claim errors; issue 13): a short
 * explanation and the social sign-in buttons with `action=claim`. The server checks that the
 * exact identity signing in won an unexpired prize and comes back through /auth/callback to the
 * car, or here with `?error=no_win_found|server_error|no_car_free`.
 * Issue 41 point 2: only the platforms whose sign-in this site has configured are offered, the
 * page says plainly which those are and whom a winner from another platform writes to, and the
 * last raffle's claim deadline counts down.
 */
import { useQuery } from '@tanstack/react-query';
import type { Platform } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { AuthFrame, Divider } from '../features/auth/form-fields';
import { SocialButtons } from '../features/auth/SocialButtons';
import { useUnconfiguredPlatforms } from '../features/auth/social-providers';
import { ClaimDeadline } from '../features/raffles/ClaimTime';
import { CURRENT_RAFFLE_KEY, fetchCurrentRaffle } from '../features/raffles/raffles-api';
import type { TranslationKey } from '../i18n';
import { SOCIAL_PLATFORMS, useSupportEmail } from '../lib/public-config';

const CLAIM_ERRORS = ['no_win_found', 'server_error', 'no_car_free'] as const;
const STEPS = ['pick', 'signIn', 'drive'] as const;

/** The i18n key of the error the claim came back with, if any (an unknown one reads as a server error). */
export function claimErrorKey(params: URLSearchParams): TranslationKey | null {
  const error = params.get('error');
  if (error === null) return null;
  const known = CLAIM_ERRORS.find((name) => name === error) ?? 'server_error';
  return `claim.errors.${known}`;
}

/** Which platforms can be used here, and what a winner from another one does. */
function PlatformsNote({ unavailable }: { unavailable: Platform[] }) {
  const { t, i18n } = useTranslation();
  const email = useSupportEmail();
  const list = (platforms: readonly Platform[]) =>
    new Intl.ListFormat(i18n.resolvedLanguage, { type: 'disjunction' }).format(
      platforms.map((platform) => t(`social.${platform}`)),
    );
  const available = SOCIAL_PLATFORMS.filter((platform) => !unavailable.includes(platform));
  return (
    <Alert
      tone={available.length === 0 ? 'warning' : 'info'}
      title={
        available.length === 0
          ? t('claim.platforms.none')
          : t('claim.platforms.available', { platforms: list(available) })
      }
    >
      <span data-testid="claim-platforms">
        {email ? (
          <>
            {t('claim.platforms.otherwise', { platforms: list(unavailable) })}{' '}
            <a href={`mailto:${email}`} className="font-semibold" data-testid="claim-support-email">
              {email}
            </a>{' '}
            {t('claim.platforms.otherwiseEnd')}
          </>
        ) : (
          // No support address on this deployment (SUPPORT_EMAIL): the organiser, as the FAQ says.
          t('claim.platforms.otherwiseOrganiser', { platforms: list(unavailable) })
        )}
      </span>
    </Alert>
  );
}

export default function Claim() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const errorKey = claimErrorKey(params);
  const unavailable = useUnconfiguredPlatforms();
  const raffle = useQuery({ queryKey: CURRENT_RAFFLE_KEY, queryFn: fetchCurrentRaffle, retry: false }).data;
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
      {raffle?.claimUntil && <ClaimDeadline raffleId={raffle.id} claimUntil={raffle.claimUntil} />}
      <Divider>{t('claim.buttonsTitle')}</Divider>
      {unavailable.length > 0 && <PlatformsNote unavailable={unavailable} />}
      <SocialButtons action="claim" className={unavailable.length > 0 ? 'mt-4' : undefined} />
    </AuthFrame>
  );
}
