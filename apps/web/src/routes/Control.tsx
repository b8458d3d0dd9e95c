import { useTranslation } from 'react-i18next';
import { ComingSoon } from '../components/ComingSoon';

export default function Control() {
  const { t } = useTranslation();
  return <ComingSoon title={t('screens.control')} />;
}
