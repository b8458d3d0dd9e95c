/** The settings screen (spec §2): the theme preference. */
import { useTranslation } from 'react-i18next';
import { Panel } from '../components/ui/Panel';
import { ThemeSettings } from '../features/settings/ThemeSettings';

export default function Settings() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-2xl">
      <Panel level={1} eyebrow={t('settings.eyebrow')} title={t('screens.settings')}>
        <ThemeSettings />
      </Panel>
    </div>
  );
}
