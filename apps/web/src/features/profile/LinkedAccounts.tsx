/**
 * Linked social accounts (spec §2; issue 13): a linked one shows its id and can be disconnected
 * after a confirmation; an unlinked one links through the server's `/api/connect/{platform}`
 * redirect. That is a full-page navigation, which carries no Authorization header, so the access
 * token rides in the query (`?token=`). The server comes back to /profile with `?linked=<platform>`
 * or `?error=identity_taken|auth_failed`, shown here once.
 */

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type Platform, TICKETS, type User } from '@telerace/protocol';
import type { TFunction } from 'i18next';
import { type MouseEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { buttonClasses } from '../../components/ui/button-styles';
import { Modal } from '../../components/ui/Modal';
import { refreshAccessToken, useAccessToken } from '../../lib/auth-client';
import { isExpiring } from '../../lib/socket-token';
import { apiErrorText } from '../auth/error-text';
import { TICKETS_QUERY_KEY } from '../tickets/tickets-api';
import { type FormStatus, FormStatusAlert } from './form-status';
import { disconnectPlatform } from './profile-api';

/** In the order the product lists them (spec §2). */
const PLATFORMS: ReadonlyArray<{ platform: Platform; name: string; idOf: (user: User) => string | null }> = [
  { platform: 'twitch', name: 'Twitch', idOf: (user) => user.twitch_id },
  { platform: 'youtube', name: 'YouTube', idOf: (user) => user.youtube_id },
  { platform: 'discord', name: 'Discord', idOf: (user) => user.discord_id },
];

const LINK_ERRORS = ['identity_taken', 'auth_failed'] as const;

export function connectUrl(platform: Platform, accessToken: string | null): string {
  return `/api/connect/${platform}?token=${encodeURIComponent(accessToken ?? '')}`;
}

/** The outcome of a link the server sent back in the address, if any. */
function linkOutcome(params: URLSearchParams, t: TFunction): FormStatus {
  const linked = PLATFORMS.find(({ platform }) => platform === params.get('linked'));
  if (linked) return { tone: 'success', text: t('profile.linked.linkedBanner', { platform: linked.name }) };
  const error = params.get('error');
  if (error === null) return null;
  const known = LINK_ERRORS.find((name) => name === error) ?? 'auth_failed';
  return { tone: 'error', text: t(`profile.linked.errors.${known}`) };
}

/**
 * A token about to expire would be refused at the server's end of the navigation: renew it first
 * (the page may have stayed open for a while).
 */
async function freshConnectUrl(platform: Platform, token: string | null): Promise<string> {
  if (token && !isExpiring(token, Date.now(), 5_000)) return connectUrl(platform, token);
  return connectUrl(platform, await refreshAccessToken());
}

export function LinkedAccounts({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<{ platform: Platform; name: string } | null>(null);
  const [params, setParams] = useSearchParams();
  const [status, setStatus] = useState<FormStatus>(() => linkOutcome(params, t));
  const accessToken = useAccessToken();

  // Shown once: a reload or a bookmark must not announce the link again.
  useEffect(() => {
    if (params.has('linked') || params.has('error')) {
      const rest = new URLSearchParams(params);
      rest.delete('linked');
      rest.delete('error');
      setParams(rest, { replace: true });
    }
  }, [params, setParams]);

  const onLink = (event: MouseEvent<HTMLAnchorElement>, platform: Platform) => {
    if (accessToken && !isExpiring(accessToken, Date.now(), 5_000)) return;
    event.preventDefault();
    freshConnectUrl(platform, accessToken).then(
      (url) => window.location.assign(url),
      () => setStatus({ tone: 'error', text: t('profile.linked.errors.auth_failed') }),
    );
  };

  const disconnect = useMutation({
    mutationFn: ({ platform }: { platform: Platform; name: string }) => disconnectPlatform(platform),
    onSuccess: (saved, { name }) => {
      onSaved(saved);
      // A linked account was worth tickets.
      void queryClient.invalidateQueries({ queryKey: TICKETS_QUERY_KEY });
      setStatus({ tone: 'success', text: t('profile.linked.disconnected', { platform: name }) });
      close();
    },
  });
  const modalError = disconnect.error
    ? apiErrorText(t, i18n, disconnect.error, 'profile.linked.failed')
    : null;

  function close() {
    setConfirming(null);
    disconnect.reset();
  }

  const onConfirm = () => {
    if (confirming) disconnect.mutate(confirming);
  };

  return (
    <div className="space-y-4">
      <p className="text-sm text-muted">{t('profile.linked.intro', { count: TICKETS.perLinkedAccount })}</p>
      <ul className="divide-y divide-line rounded-xl border border-line">
        {PLATFORMS.map(({ platform, name, idOf }) => {
          const id = idOf(user);
          return (
            <li key={platform} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
              <div className="min-w-0">
                <p className="font-semibold">{name}</p>
                <p className="text-xs break-all text-muted">
                  {id ? t('profile.linked.linkedId', { id }) : t('profile.linked.notLinked')}
                </p>
              </div>
              {id ? (
                <Button
                  variant="secondary"
                  size="sm"
                  aria-label={t('profile.linked.disconnectLabel', { platform: name })}
                  onClick={() => setConfirming({ platform, name })}
                >
                  {t('profile.linked.disconnect')}
                </Button>
              ) : (
                <a
                  href={connectUrl(platform, accessToken)}
                  onClick={(event) => onLink(event, platform)}
                  aria-label={t('profile.linked.linkLabel', { platform: name })}
                  className={buttonClasses('primary', 'sm')}
                >
                  {t('profile.linked.link')}
                </a>
              )}
            </li>
          );
        })}
      </ul>
      <FormStatusAlert status={status} />
      <Modal
        open={confirming !== null}
        onClose={close}
        size="sm"
        title={t('profile.linked.confirmTitle', { platform: confirming?.name })}
        description={t('profile.linked.confirmText', { platform: confirming?.name })}
        footer={
          <>
            <Button variant="secondary" onClick={close}>
              {t('profile.cancel')}
            </Button>
            <Button variant="danger" busy={disconnect.isPending} onClick={onConfirm}>
              {t('profile.linked.disconnect')}
            </Button>
          </>
        }
      >
        {modalError && <Alert tone="error">{modalError}</Alert>}
      </Modal>
    </div>
  );
}
