/**
 * The sentence telling a reader how to reach the site (FAQ, terms): the support address when the
 * deployment sets one (SUPPORT_EMAIL), otherwise to ask the organiser; empty while the config loads.
 */
import { useTranslation } from 'react-i18next';
import { useSupportEmail } from '../../lib/public-config';

export function useSupportContact(): string {
  const { t } = useTranslation();
  const email = useSupportEmail();
  if (email === undefined) return '';
  return email === null ? t('pages.common.contact.organiser') : t('pages.common.contact.email', { email });
}
