import { useTranslation } from 'react-i18next';
import { ComingSoon } from '../components/ComingSoon';

export default function SignupSuccess() {
  const { t } = useTranslation();
  return <ComingSoon title={t('screens.signupSuccess')} />;
}
