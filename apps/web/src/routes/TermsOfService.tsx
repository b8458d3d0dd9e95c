/**
 * The terms of service: minimum age and governing law come from the business constants, the
 * contact sentence from the deployment's support address.
 */
import { GOVERNING_LAW, MINIMUM_AGE } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { LegalDocument } from '../components/content/LegalDocument';
import { useSupportContact } from '../components/content/support-contact';

/** Date of the current version of the terms (ISO, UTC). */
const TERMS_LAST_UPDATED = '2026-11-25';

export default function TermsOfService() {
  const { t } = useTranslation();
  // The jurisdiction's name in the reader's language ("Quebec" / "Québec"); the constant if untranslated.
  const names: unknown = t('pages.terms.jurisdictions', { returnObjects: true });
  const localized =
    typeof names === 'object' && names !== null ? (names as Record<string, unknown>)[GOVERNING_LAW] : null;
  const jurisdiction = typeof localized === 'string' ? localized : GOVERNING_LAW;
  const contact = useSupportContact();
  return (
    <LegalDocument
      prefix="pages.terms"
      lastUpdated={TERMS_LAST_UPDATED}
      values={{ minimumAge: MINIMUM_AGE, jurisdiction, contact }}
    />
  );
}
