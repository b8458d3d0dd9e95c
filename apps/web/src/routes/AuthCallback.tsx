/**
 * Finalizing a social login (spec §2 "Auth callback"): the server comes back here with `token`
 * and where to go next. The token is taken out of the address bar at once (replace navigation).
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
  const { loginWithToken } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // A token is used once (StrictMode runs effects twice).
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const token = params.get('token');
    if (!token) {
      navigate('/login?error=auth_failed', { replace: true });
      return;
    }
    const finalDestination = params.get('final_destination');
    if (finalDestination) remember(FINAL_DESTINATION_KEY, safeInternalPath(finalDestination));
    const carId = params.get('carId');
    const controlToken = params.get('controlToken');
    if (carId && controlToken) remember(controlTokenKey(carId), controlToken);
    const destination = safeInternalPath(params.get('destination'));
    void loginWithToken(token).then((user) => {
      // Without a user, loginWithToken has already logged out to /login with the reason.
      if (user) navigate(destination, { replace: true });
    });
  }, [params, loginWithToken, navigate]);

  return (
    <AuthFrame title={t('screens.authCallback')}>
      <p className="flex items-center gap-3 text-muted">
        <Spinner size="md" decorative className="text-accent" />
        <span role="status">{t('callback.working')}</span>
      </p>
    </AuthFrame>
  );
}
