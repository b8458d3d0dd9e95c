/**
 * Asks the user to reload when the server refused this page's protocol (lib/outdated-page.ts):
 * its sockets have stopped, and the reload fetches the page the server serves. Shown above the
 * content, early in the tab order; Reload is a plain button (Enter or Space).
 */
import { useId, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { type OutdatedPage, outdatedPage } from '../../lib/outdated-page';
import { Button } from '../ui/Button';

export interface OutdatedPageBannerProps {
  store?: OutdatedPage;
  reload?: () => void;
}

export function OutdatedPageBanner({
  store = outdatedPage,
  reload = () => window.location.reload(),
}: OutdatedPageBannerProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const { reason } = useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.getState(),
    () => store.getState(),
  );
  if (reason === null) return null;
  return (
    <section
      role="alert"
      aria-labelledby={titleId}
      className="border-b border-warning/60 bg-surface-2 px-4 py-3 sm:px-8"
      data-testid="outdated-page"
    >
      <div className="mx-auto flex max-w-6xl flex-col gap-3 sm:flex-row sm:items-center sm:gap-6">
        <div className="flex-1 text-sm">
          <p id={titleId} className="font-semibold text-fg">
            {t(`outdatedPage.${reason}.title`)}
          </p>
          <p className="mt-0.5 text-muted">{t(`outdatedPage.${reason}.text`)}</p>
        </div>
        <Button onClick={reload} className="shrink-0 self-end sm:self-auto">
          {t('outdatedPage.reload')}
        </Button>
      </div>
    </section>
  );
}
