/**
 * The router's default error screen (spec §8): "Unexpected Application Error!" with the status or
 * message. A page whose code could not be fetched (a deploy since the tab was opened) also offers a reload.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { Button } from '../components/ui/Button';
import { LinkButton } from '../components/ui/LinkButton';
import { Panel } from '../components/ui/Panel';
import { PageLoadError } from '../lib/lazy-page';

function describe(error: unknown, statusText: (status: number) => string): string {
  if (isRouteErrorResponse(error)) {
    return [statusText(error.status), error.statusText].filter(Boolean).join(' · ');
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

export default function ErrorPage() {
  const { t } = useTranslation();
  const error = useRouteError();
  const pageLoadFailed = error instanceof PageLoadError;
  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <main className="grid min-h-dvh place-items-center bg-bg px-4 py-10">
      <div className="w-full max-w-xl">
        <Panel level={1} title={t('errorPage.title')}>
          <p className="text-muted">{t(pageLoadFailed ? 'errorPage.pageLoadFailed' : 'errorPage.text')}</p>
          <pre className="mt-4 overflow-x-auto rounded-lg border border-line bg-surface-2 px-4 py-3 font-mono text-sm whitespace-pre-wrap text-fg">
            {describe(error, (status) => t('errorPage.status', { status }))}
          </pre>
          <div className="mt-6 flex flex-wrap gap-3">
            {pageLoadFailed && (
              <Button onClick={() => window.location.reload()}>{t('errorPage.reload')}</Button>
            )}
            <LinkButton to="/" variant="secondary">
              {t('common.backHome')}
            </LinkButton>
          </div>
        </Panel>
      </div>
    </main>
  );
}
