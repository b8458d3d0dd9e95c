import { useTranslation } from 'react-i18next';
import { iconButtonClasses } from '../../components/ui/button-styles';
import { LineIcon } from '../../components/ui/Icon';
import { setTheme, useTheme } from './theme';

function SunIcon() {
  return (
    <LineIcon>
      <circle cx="12" cy="12" r="4" />
      <path
        strokeLinecap="round"
        d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4"
      />
    </LineIcon>
  );
}

function MoonIcon() {
  return (
    <LineIcon>
      <path strokeLinejoin="round" d="M20 14.5A8 8 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5Z" />
    </LineIcon>
  );
}

export function ThemeToggle() {
  const { t } = useTranslation();
  const theme = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      data-testid="theme-toggle"
      className={iconButtonClasses}
      aria-label={next === 'light' ? t('topbar.themeToLight') : t('topbar.themeToDark')}
      title={next === 'light' ? t('topbar.themeToLight') : t('topbar.themeToDark')}
      onClick={() => setTheme(next)}
    >
      {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
    </button>
  );
}
