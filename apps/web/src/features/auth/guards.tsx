/** Route guards: sign-in required (→ /login) and admin only (→ /). */
import { Navigate, Outlet } from 'react-router';
import { useAuth } from './auth-context';
import { SessionLoading } from './SessionLoading';

export function RequireAuth() {
  const { user, loading, signingOut } = useAuth();
  if (loading) return <SessionLoading />;
  if (!user) return signingOut ? null : <Navigate to="/login" replace />;
  return <Outlet />;
}

export function RequireAdmin() {
  const { user, loading, signingOut } = useAuth();
  if (loading) return <SessionLoading />;
  if (!user) return signingOut ? null : <Navigate to="/login" replace />;
  if (!user.is_admin) return <Navigate to="/" replace />;
  return <Outlet />;
}
