/**
 * The bot check of the sign-up and login forms: Google reCAPTCHA v2 (the "I'm not a robot"
 * checkbox) when the deployment has a site key (`PublicConfig.recaptchaSiteKey`). Without a key
 * the check is disabled: always ready, token ''. The form never waits on a disabled check, nor on
 * a public config that could not be loaded; a form sent while the config is still loading waits for
 * it (a slow first load must not tell a member "reCAPTCHA not ready" where there is none).
 */

import { useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../../components/ui/Spinner';
import { publicConfigQuery, usePublicConfig } from '../../lib/public-config';
import { useTheme } from '../theme/theme';

interface Grecaptcha {
  render(
    container: HTMLElement,
    params: {
      sitekey: string;
      theme?: 'dark' | 'light';
      callback?: (token: string) => void;
      'expired-callback'?: () => void;
      'error-callback'?: () => void;
    },
  ): number;
  reset(widgetId?: number): void;
}

declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
    teleraceRecaptchaLoaded?: () => void;
  }
}

const RECAPTCHA_ONLOAD = 'teleraceRecaptchaLoaded';
let scriptLoad: Promise<Grecaptcha> | null = null;

/** Loads Google's script once per page (in the page's language at that time). */
function loadRecaptcha(language: string): Promise<Grecaptcha> {
  if (window.grecaptcha?.render) return Promise.resolve(window.grecaptcha);
  if (!scriptLoad) {
    scriptLoad = new Promise<Grecaptcha>((resolve, reject) => {
      window[RECAPTCHA_ONLOAD] = () => {
        if (window.grecaptcha) resolve(window.grecaptcha);
        else reject(new Error('reCAPTCHA loaded without grecaptcha'));
      };
      const script = document.createElement('script');
      script.src = `https://www.google.com/recaptcha/api.js?render=explicit&onload=${RECAPTCHA_ONLOAD}&hl=${encodeURIComponent(language)}`;
      script.async = true;
      script.defer = true;
      script.onerror = () => {
        scriptLoad = null;
        script.remove();
        reject(new Error('reCAPTCHA script failed to load'));
      };
      document.head.append(script);
    });
  }
  return scriptLoad;
}

export interface BotCheckState {
  /** False while the check is required but its widget is not on screen yet. */
  ready: boolean;
  /** The token to send; '' while unsolved or when the check is disabled. */
  token: string;
  /** True when the deployment requires the check. */
  enabled: boolean;
  /** True when the widget could not be loaded. */
  failed: boolean;
  siteKey: string | null;
  /** Clears a used token (tokens are single use) so the user solves the check again. */
  reset: () => void;
  /** Resolves once the public config has loaded (or failed to): whether the check is required. */
  required: () => Promise<boolean>;
  /** Wiring for <BotCheck />. */
  bind: {
    setToken: (token: string) => void;
    setReady: (ready: boolean) => void;
    setFailed: (failed: boolean) => void;
    resetRef: { current: (() => void) | null };
  };
}

export function useBotCheck(): BotCheckState {
  const config = usePublicConfig();
  const siteKey = config.data?.recaptchaSiteKey || null;
  const [token, setToken] = useState('');
  const [widgetReady, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const resetRef = useRef<(() => void) | null>(null);
  const reset = useCallback(() => {
    setToken('');
    resetRef.current?.();
  }, []);
  const bind = useMemo(() => ({ setToken, setReady, setFailed, resetRef }), []);
  const queryClient = useQueryClient();
  const required = useCallback(
    () =>
      queryClient.ensureQueryData(publicConfigQuery).then(
        (loaded) => Boolean(loaded.recaptchaSiteKey),
        () => false,
      ),
    [queryClient],
  );
  const enabled = siteKey !== null;
  // A config that is still loading might require the check; one that failed cannot.
  const ready = config.isPending ? false : enabled ? widgetReady : true;
  return {
    ready,
    token: enabled ? token : '',
    enabled,
    failed,
    siteKey,
    reset,
    required,
    bind,
  };
}

/**
 * Why the form cannot be sent yet because of the bot check, or null when it can. A config still
 * loading is waited for: without a site key the form goes; with one, the widget has yet to appear.
 */
export async function botCheckError(t: TFunction, check: BotCheckState): Promise<string | null> {
  if (!check.ready && !check.enabled && !(await check.required())) return null;
  if (!check.ready) return t('auth.botCheck.notReady');
  if (check.enabled && check.token === '') return t('auth.botCheck.required');
  return null;
}

/** Renders the checkbox widget where the form wants it; nothing when the check is disabled. */
export function BotCheck({ check }: { check: BotCheckState }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const containerRef = useRef<HTMLDivElement>(null);
  const { siteKey, bind, failed, ready } = check;
  const language = i18n.resolvedLanguage ?? 'en';

  useEffect(() => {
    if (!siteKey) return;
    const container = containerRef.current;
    if (!container) return;
    let cancelled = false;
    // A fresh element per render: the widget cannot be re-rendered into the same one (theme change).
    const slot = document.createElement('div');
    container.replaceChildren(slot);
    bind.setReady(false);
    bind.setToken('');
    loadRecaptcha(language)
      .then((grecaptcha) => {
        if (cancelled) return;
        const widgetId = grecaptcha.render(slot, {
          sitekey: siteKey,
          theme,
          callback: (token) => bind.setToken(token),
          'expired-callback': () => bind.setToken(''),
          'error-callback': () => bind.setToken(''),
        });
        bind.resetRef.current = () => grecaptcha.reset(widgetId);
        bind.setFailed(false);
        bind.setReady(true);
      })
      .catch(() => {
        if (!cancelled) bind.setFailed(true);
      });
    return () => {
      cancelled = true;
      bind.resetRef.current = null;
      container.replaceChildren();
    };
  }, [siteKey, theme, language, bind]);

  if (!siteKey) return null;
  return (
    <fieldset className="min-w-0">
      <legend className="sr-only">{t('auth.botCheck.label')}</legend>
      <div ref={containerRef} className="min-h-[78px] overflow-x-auto" />
      {!ready && !failed && (
        <p className="-mt-[78px] flex h-[78px] items-center gap-2 text-sm text-muted">
          <Spinner size="sm" decorative />
          {t('auth.botCheck.loading')}
        </p>
      )}
      {failed && <p className="mt-1.5 text-sm font-medium text-danger">{t('auth.botCheck.loadFailed')}</p>}
    </fieldset>
  );
}
