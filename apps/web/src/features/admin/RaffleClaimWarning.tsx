/**
 * Race Control's warning, before the draw, that some winners could not claim (issue 41 point 2):
 * a prize is claimed by signing in with the winning account, so a platform whose sign-in this
 * deployment has not configured (public config `socialProviders`, as the log-in page reads it)
 * leaves its winners stranded. Lists those platforms, with the raffle's entries from each.
 */
import type { RaffleSummary } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { useUnconfiguredPlatforms } from '../auth/social-providers';

export function RaffleClaimWarning({ raffle }: { raffle: RaffleSummary | null }) {
  const { t, i18n } = useTranslation();
  const T = 'raceControl.raffle.claimWarning';
  const platforms = useUnconfiguredPlatforms();
  if (platforms.length === 0) return null;
  const names = new Intl.ListFormat(i18n.resolvedLanguage, { type: 'conjunction' }).format(
    platforms.map((platform) => t(`social.${platform}`)),
  );
  const open = raffle?.status === 'open';
  return (
    <Alert tone="warning" title={t(`${T}.title`, { platforms: names })}>
      <div data-testid="raffle-claim-warning">
        <p>{t(`${T}.text`)}</p>
        {open && (
          <ul className="mt-1 list-disc pl-5">
            {platforms.map((platform) => (
              <li key={platform} data-platform={platform}>
                {t(`${T}.entries`, {
                  platform: t(`social.${platform}`),
                  count: raffle.entriesByPlatform[platform],
                })}
              </li>
            ))}
          </ul>
        )}
      </div>
    </Alert>
  );
}
