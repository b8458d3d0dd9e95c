import { useTranslation } from 'react-i18next';
import { ComingSoon } from '../components/ComingSoon';

export default function Signup() {
  const { t } = useTranslation();
  return <ComingSoon title={t('screens.signup')} />;
}
