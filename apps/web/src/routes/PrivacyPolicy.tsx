/** The privacy policy (Quebec's Law 25 and PIPEDA); its text lives in i18n/pages/*.json. */
import {
  COOKIE_CONSENT_COOKIE,
  COOKIE_CONSENT_DAYS,
  LANGUAGE_COOKIE,
  MINIMUM_AGE,
  THEME_STORAGE_KEY,
  TICKETS,
} from '@telerace/protocol';
import { LegalDocument } from '../components/content/LegalDocument';
import { LANGUAGE_STORAGE_KEY } from '../i18n';

/** Date of the current version of the policy (ISO, UTC). */
const PRIVACY_LAST_UPDATED = '2026-11-25';

export default function PrivacyPolicy() {
  return (
    <LegalDocument
      prefix="pages.privacy"
      lastUpdated={PRIVACY_LAST_UPDATED}
      values={{
        minimumAge: MINIMUM_AGE,
        consentCookie: COOKIE_CONSENT_COOKIE,
        consentDays: COOKIE_CONSENT_DAYS,
        languageCookie: LANGUAGE_COOKIE,
        languageKey: LANGUAGE_STORAGE_KEY,
        themeKey: THEME_STORAGE_KEY,
        donationExpiryDays: TICKETS.donationExpiryDays,
      }}
    />
  );
}
