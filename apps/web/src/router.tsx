/** The route table (spec §2) and the browser router built from it. */
import { createBrowserRouter, type RouteObject } from 'react-router';
import { AppLayout, type RouteHandle } from './components/layout/AppLayout';
import { RequireAdmin, RequireAuth } from './features/auth/guards';
import About from './routes/About';
import Admin from './routes/Admin';
import AuthCallback from './routes/AuthCallback';
import CarSelection from './routes/CarSelection';
import Claim from './routes/Claim';
import CompleteRegistration from './routes/CompleteRegistration';
import Control from './routes/Control';
import ErrorPage from './routes/ErrorPage';
import Faq from './routes/Faq';
import ForgotPassword from './routes/ForgotPassword';
import Home from './routes/Home';
import Leaderboards from './routes/Leaderboards';
import Login from './routes/Login';
import PrivacyPolicy from './routes/PrivacyPolicy';
import Profile from './routes/Profile';
import ResetPassword from './routes/ResetPassword';
import Settings from './routes/Settings';
import Signup from './routes/Signup';
import SignupSuccess from './routes/SignupSuccess';
import TermsOfService from './routes/TermsOfService';

const title = (titleKey: string): RouteHandle => ({ titleKey });

export const routes: RouteObject[] = [
  {
    path: '/',
    element: <AppLayout />,
    errorElement: <ErrorPage />,
    children: [
      { index: true, element: <Home />, handle: title('screens.home') },
      { path: 'leaderboards', element: <Leaderboards />, handle: title('screens.leaderboards') },
      { path: 'about', element: <About />, handle: title('screens.about') },
      { path: 'faq', element: <Faq />, handle: title('screens.faq') },
      { path: 'privacy-policy', element: <PrivacyPolicy />, handle: title('screens.privacyPolicy') },
      { path: 'terms-of-service', element: <TermsOfService />, handle: title('screens.termsOfService') },
      { path: 'signup', element: <Signup />, handle: title('screens.signup') },
      { path: 'login', element: <Login />, handle: title('screens.login') },
      { path: 'forgot-password', element: <ForgotPassword />, handle: title('screens.forgotPassword') },
      { path: 'reset-password/:token', element: <ResetPassword />, handle: title('screens.resetPassword') },
      { path: 'auth/callback', element: <AuthCallback />, handle: title('screens.authCallback') },
      { path: 'signup-success', element: <SignupSuccess />, handle: title('screens.signupSuccess') },
      { path: 'claim', element: <Claim />, handle: title('screens.claim') },
      {
        element: <RequireAuth />,
        children: [
          {
            path: 'complete-registration',
            element: <CompleteRegistration />,
            handle: title('screens.completeRegistration'),
          },
          { path: 'car-selection', element: <CarSelection />, handle: title('screens.carSelection') },
          { path: 'control/:carId/:streamId', element: <Control />, handle: title('screens.control') },
          { path: 'settings', element: <Settings />, handle: title('screens.settings') },
          { path: 'profile', element: <Profile />, handle: title('screens.profile') },
        ],
      },
      {
        element: <RequireAdmin />,
        children: [{ path: 'admin', element: <Admin />, handle: title('screens.admin') }],
      },
      // Any other path shows the home page (spec §2), at the URL that was asked for.
      { path: '*', element: <Home />, handle: title('screens.home') },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
