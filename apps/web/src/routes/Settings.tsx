import { useTranslation } from 'react-i18next';
import { ComingSoon } from '../components/ComingSoon';

export default function Settings() {
  const { t } = useTranslation();
  return <ComingSoon title={t('screens.settings')} />;
}
