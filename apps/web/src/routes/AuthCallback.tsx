/**
 * Finalizing a social login (spec §2 "Auth callback"): the server comes back here with `token`
 * and where to go next. Since issue 10, `token` is a one-time sign-in code, not an access token:
 * it is exchanged for a session by this browser only (the one that started the sign-in holds the
 * matching cookie), so a link carrying someone else's code — or someone's access token — signs
 * nobody in (login CSRF). The page leaves with a replace navigation, so the code does not stay in
 * the history.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { Spinner } from '../components/ui/Spinner';
import { useAuth } from '../features/auth/auth-context';
import { AuthFrame } from '../features/auth/form-fields';
import { controlTokenKey, FINAL_DESTINATION_KEY, safeInternalPath } from '../features/auth/paths';

function remember(key: string, value: string) {
  try {
    window.sessionStorage.setItem(key, value);
  } catch {
    // Storage can be blocked; the login itself still goes on.
  }
}

export default function AuthCallback() {
  const { t } = useTranslation();
  const { loginWithCode } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // A code is used once (StrictMode runs effects twice).
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    // The spec's parameter name; its value is a one-time code (see above).
    const code = params.get('token');
    if (!code) {
      navigate('/login?error=auth_failed', { replace: true });
      return;
    }
    const finalDestination = params.get('final_destination');
    const carId = params.get('carId');
    const controlToken = params.get('controlToken');
    const destination = safeInternalPath(params.get('destination'));
    void loginWithCode(code).then((user) => {
      // Without a user, loginWithCode has already gone to /login with the reason.
      if (!user) return;
      // Kept only for a session this browser really started: never from a foreign link.
      if (finalDestination) remember(FINAL_DESTINATION_KEY, safeInternalPath(finalDestination));
      if (carId && controlToken) remember(controlTokenKey(carId), controlToken);
      navigate(destination, { replace: true });
    });
  }, [params, loginWithCode, navigate]);

  return (
    <AuthFrame title={t('screens.authCallback')}>
      <p className="flex items-center gap-3 text-muted">
        <Spinner size="md" decorative className="text-accent" />
        <span role="status">{t('callback.working')}</span>
      </p>
    </AuthFrame>
  );
}
