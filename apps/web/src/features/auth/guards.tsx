/**
 * Route guards: sign-in required (→ /login) and admin only (→ /). An account made by a social
 * sign-up must accept the terms before anything else (issue 13): the server refuses its calls with
 * errors.registrationIncomplete, so every guarded page sends it to /complete-registration.
 */
import { Navigate, Outlet, useLocation } from 'react-router';
import { useAuth } from './auth-context';
import { SessionLoading } from './SessionLoading';

const COMPLETE_REGISTRATION = '/complete-registration';

export function RequireAuth() {
  const { user, loading, signingOut } = useAuth();
  const { pathname } = useLocation();
  if (loading) return <SessionLoading />;
  if (!user) return signingOut ? null : <Navigate to="/login" replace />;
  if (!user.registration_complete && pathname !== COMPLETE_REGISTRATION) {
    return <Navigate to={COMPLETE_REGISTRATION} replace />;
  }
  return <Outlet />;
}

export function RequireAdmin() {
  const { user, loading, signingOut } = useAuth();
  if (loading) return <SessionLoading />;
  if (!user) return signingOut ? null : <Navigate to="/login" replace />;
  if (!user.registration_complete) return <Navigate to={COMPLETE_REGISTRATION} replace />;
  if (!user.is_admin) return <Navigate to="/" replace />;
  return <Outlet />;
}
