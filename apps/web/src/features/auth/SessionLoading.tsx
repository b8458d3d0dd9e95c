import { useTranslation } from 'react-i18next';
import { Spinner } from '../../components/ui/Spinner';

/** The only thing on screen while the session is being restored. */
export function SessionLoading() {
  const { t } = useTranslation();
  return (
    <div
      role="status"
      className="fixed inset-0 z-50 flex flex-col items-center justify-center gap-4 bg-bg text-fg"
    >
      <Spinner size="lg" decorative className="text-accent" />
      <p className="font-display text-lg font-bold tracking-wide italic">{t('session.initializing')}</p>
    </div>
  );
}
