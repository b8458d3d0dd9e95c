import { LANGUAGES } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { LANGUAGE_NAMES } from '../../i18n';
import { cx } from '../../lib/cx';

/** EN / FR buttons; the active language's button is pressed and disabled. */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const current = i18n.resolvedLanguage;
  return (
    <fieldset className="flex shrink-0 rounded-lg border border-line bg-surface-2 p-0.5">
      <legend className="sr-only">{t('topbar.language')}</legend>
      {LANGUAGES.map((lng) => {
        const active = lng === current;
        return (
          <button
            key={lng}
            type="button"
            lang={lng}
            data-testid={`lang-${lng}`}
            aria-label={LANGUAGE_NAMES[lng]}
            aria-pressed={active}
            disabled={active}
            onClick={() => void i18n.changeLanguage(lng)}
            className={cx(
              'h-7 min-w-7 rounded-md px-1 text-xs font-bold tracking-wider transition-colors sm:h-8 sm:min-w-9 sm:px-1.5',
              'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring',
              active
                ? 'cursor-default bg-accent text-accent-fg'
                : 'text-muted hover:bg-surface hover:text-fg',
            )}
          >
            {lng.toUpperCase()}
          </button>
        );
      })}
    </fieldset>
  );
}
