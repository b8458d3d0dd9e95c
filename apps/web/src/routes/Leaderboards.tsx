import { useTranslation } from 'react-i18next';
import { ComingSoon } from '../components/ComingSoon';

export default function Leaderboards() {
  const { t } = useTranslation();
  return <ComingSoon title={t('screens.leaderboards')} />;
}
