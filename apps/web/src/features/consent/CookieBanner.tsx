/** Cookie consent banner (spec §2): shown until the consent cookie exists; Accept sets it. */
import { COOKIE_CONSENT_COOKIE, COOKIE_CONSENT_DAYS } from '@telerace/protocol';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Button } from '../../components/ui/Button';
import { readCookie, writeCookie } from '../../lib/cookies';
import { useHydrated } from '../../lib/use-hydrated';

const SECONDS_PER_DAY = 24 * 60 * 60;

export function hasConsent(): boolean {
  return readCookie(COOKIE_CONSENT_COOKIE) !== undefined;
}

export function CookieBanner() {
  const { t } = useTranslation();
  // The consent cookie is the browser's: a page the server rendered shows the banner once live.
  const hydrated = useHydrated();
  const [accepted, setAccepted] = useState(false);
  if (!hydrated || accepted || hasConsent()) return null;

  const accept = () => {
    writeCookie(COOKIE_CONSENT_COOKIE, '1', COOKIE_CONSENT_DAYS * SECONDS_PER_DAY);
    setAccepted(true);
  };

  return (
    <section
      aria-label={t('cookie.label')}
      className="sticky bottom-0 z-20 border-t border-line bg-surface/95 shadow-[0_-8px_24px_rgb(0_0_0/0.18)] backdrop-blur-md"
    >
      <div className="mx-auto flex max-w-6xl flex-col gap-3 px-4 py-4 sm:flex-row sm:items-center sm:gap-6 sm:px-8">
        <div className="flex-1 text-sm">
          <p className="font-display font-black tracking-wide text-accent uppercase italic">
            {t('cookie.title')}
          </p>
          <p className="mt-0.5 text-fg">
            <Trans
              i18nKey="cookie.text"
              components={{
                privacy: <Link to="/privacy-policy" className="font-semibold underline" />,
                terms: <Link to="/terms-of-service" className="font-semibold underline" />,
              }}
            />
          </p>
        </div>
        <Button data-testid="cookie-accept" onClick={accept} className="shrink-0 self-end sm:self-auto">
          {t('cookie.accept')}
        </Button>
      </div>
    </section>
  );
}
