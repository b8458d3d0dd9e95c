import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

const linkClass = 'text-muted no-underline hover:text-fg hover:underline';

export function Footer() {
  const { t } = useTranslation();
  return (
    <footer className="border-t border-line px-4 py-6 text-sm sm:px-8">
      <div className="mx-auto flex max-w-6xl flex-col items-center justify-between gap-3 sm:flex-row">
        <nav aria-label={t('footer.label')}>
          <ul className="flex flex-wrap items-center gap-x-5 gap-y-2">
            <li>
              <Link to="/about" className={linkClass}>
                {t('footer.about')}
              </Link>
            </li>
            <li>
              <Link to="/privacy-policy" className={linkClass}>
                {t('footer.privacy')}
              </Link>
            </li>
            <li>
              <Link to="/terms-of-service" className={linkClass}>
                {t('footer.terms')}
              </Link>
            </li>
          </ul>
        </nav>
        <p className="text-muted">{t('footer.copyright', { year: new Date().getFullYear() })}</p>
      </div>
    </footer>
  );
}
