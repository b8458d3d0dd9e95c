/** The route table (spec §2) and the browser router built from it. */
import { createBrowserRouter, type HydrationState, matchRoutes, type RouteObject } from 'react-router';
import { AppLayout, type RouteHandle } from './components/layout/AppLayout';
import { RequireAdmin, RequireAuth } from './features/auth/guards';
import type { TranslationKey } from './i18n';
import { loadEnglishDocuments, loadLaterEnglish } from './i18n';
import { type LazyPage, lazyPage, PageLoading } from './lib/lazy-page';
import ErrorPage from './routes/ErrorPage';
// The landing page (and the page for unknown paths) is in the first download; every other page is
// fetched the first time it is shown.
import Home from './routes/Home';

type PageLoad = Parameters<typeof lazyPage>[0];

/** A page fetched when shown: its code and the English texts of such pages (src/i18n) together. */
const laterPage = (load: PageLoad, ...texts: (() => Promise<void>)[]): LazyPage =>
  lazyPage(() => Promise.all([load(), loadLaterEnglish(), ...texts.map((l) => l())]).then(([page]) => page));
/** A page showing a long document: also its English text (i18n/documents). */
const documentPage = (load: PageLoad): LazyPage => laterPage(load, loadEnglishDocuments);

const About = documentPage(() => import('./routes/About'));
const Admin = laterPage(() => import('./routes/Admin'));
const AuthCallback = laterPage(() => import('./routes/AuthCallback'));
const CarSelection = laterPage(() => import('./routes/CarSelection'));
const Claim = laterPage(() => import('./routes/Claim'));
const CompleteRegistration = laterPage(() => import('./routes/CompleteRegistration'));
const Control = laterPage(() => import('./routes/Control'));
const Faq = documentPage(() => import('./routes/Faq'));
const ForgotPassword = laterPage(() => import('./routes/ForgotPassword'));
const Leaderboards = laterPage(() => import('./routes/Leaderboards'));
const Login = laterPage(() => import('./routes/Login'));
const PrivacyPolicy = documentPage(() => import('./routes/PrivacyPolicy'));
const Race = laterPage(() => import('./routes/Race'));
const Raffle = laterPage(() => import('./routes/Raffle'));
const Profile = laterPage(() => import('./routes/Profile'));
const ResetPassword = laterPage(() => import('./routes/ResetPassword'));
const Settings = laterPage(() => import('./routes/Settings'));
const Signup = laterPage(() => import('./routes/Signup'));
const SignupSuccess = laterPage(() => import('./routes/SignupSuccess'));
const TermsOfService = documentPage(() => import('./routes/TermsOfService'));

interface PageHandle extends RouteHandle {
  /** Fetches the page's code; absent for pages in the first download. */
  preload?: LazyPage['preload'];
}

const title = (titleKey: TranslationKey): PageHandle => ({ titleKey });

/** A route showing a page fetched when first used: its element, and its title with the preload. */
const page = (lazy: LazyPage, titleKey: TranslationKey): Pick<RouteObject, 'element' | 'handle'> => ({
  element: lazy.element,
  handle: { titleKey, preload: lazy.preload } satisfies PageHandle,
});

/**
 * A long document's route (about, FAQ, privacy, terms: static text): a navigation to it waits for
 * its code and texts (the route's loader), so the page being left stays until the document shows
 * whole, with no spinner in between (issue 41: the FAQ flashed one). Opened as the first page, the
 * spinner shows meanwhile, as for any page — but for a page the server rendered: its loader ran
 * there, and the hydration data says so (a router `lazy` would show the spinner over that HTML).
 */
const documentRoute = (
  lazy: LazyPage,
  titleKey: TranslationKey,
): Pick<RouteObject, 'element' | 'handle' | 'loader' | 'HydrateFallback'> => ({
  ...page(lazy, titleKey),
  loader: () => lazy.preload().then(() => null),
  HydrateFallback: PageLoading,
});

export const routes: RouteObject[] = [
  {
    path: '/',
    element: <AppLayout />,
    errorElement: <ErrorPage />,
    children: [
      { index: true, element: <Home />, handle: title('screens.home') },
      { path: 'leaderboards', ...page(Leaderboards, 'screens.leaderboards') },
      { path: 'races/:id', ...page(Race, 'screens.race') },
      { path: 'raffles/:id', ...page(Raffle, 'screens.raffle') },
      { path: 'about', ...documentRoute(About, 'screens.about') },
      { path: 'faq', ...documentRoute(Faq, 'screens.faq') },
      { path: 'privacy-policy', ...documentRoute(PrivacyPolicy, 'screens.privacyPolicy') },
      { path: 'terms-of-service', ...documentRoute(TermsOfService, 'screens.termsOfService') },
      { path: 'signup', ...page(Signup, 'screens.signup') },
      { path: 'login', ...page(Login, 'screens.login') },
      { path: 'forgot-password', ...page(ForgotPassword, 'screens.forgotPassword') },
      { path: 'reset-password/:token', ...page(ResetPassword, 'screens.resetPassword') },
      { path: 'auth/callback', ...page(AuthCallback, 'screens.authCallback') },
      { path: 'signup-success', ...page(SignupSuccess, 'screens.signupSuccess') },
      { path: 'claim', ...page(Claim, 'screens.claim') },
      {
        element: <RequireAuth />,
        children: [
          {
            path: 'complete-registration',
            ...page(CompleteRegistration, 'screens.completeRegistration'),
          },
          { path: 'car-selection', ...page(CarSelection, 'screens.carSelection') },
          { path: 'control/:carId/:streamId', ...page(Control, 'screens.control') },
          { path: 'settings', ...page(Settings, 'screens.settings') },
          { path: 'profile', ...page(Profile, 'screens.profile') },
        ],
      },
      {
        element: <RequireAdmin />,
        children: [{ path: 'admin', ...page(Admin, 'screens.admin') }],
      },
      // Any other path shows the home page (spec §2), at the URL that was asked for.
      { path: '*', element: <Home />, handle: title('screens.home') },
    ],
  },
];

/**
 * Starts fetching the code of the page at `pathname` without waiting for the session to be restored
 * (the page renders only after that). Failures are left to the page's own load, which shows them.
 * Resolves once it is here (a hydration waits for it, so that the page is drawn as the server drew it).
 */
export function preloadPage(pathname: string): Promise<unknown> {
  const loads = (matchRoutes(routes, pathname) ?? []).map((match) =>
    (match.route.handle as PageHandle | undefined)?.preload?.().catch(() => undefined),
  );
  return Promise.all(loads);
}

/** `hydrationData`: what the server's render of this page left for the router (entry-server.tsx). */
export function createAppRouter(hydrationData?: HydrationState) {
  return createBrowserRouter(routes, hydrationData ? { hydrationData } : undefined);
}
