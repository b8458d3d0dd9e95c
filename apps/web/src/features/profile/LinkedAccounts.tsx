/**
 * Linked social accounts (spec §2): a linked one shows its id and can be disconnected after a
 * confirmation; an unlinked one links through the server's `/api/connect/{platform}` redirect.
 */

import { useQueryClient } from '@tanstack/react-query';
import { type Platform, TICKETS, type User } from '@telerace/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { buttonClasses } from '../../components/ui/button-styles';
import { Modal } from '../../components/ui/Modal';
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

export function LinkedAccounts({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<{ platform: Platform; name: string } | null>(null);
  const [modalError, setModalError] = useState<string | null>(null);
  const [status, setStatus] = useState<FormStatus>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    setConfirming(null);
    setModalError(null);
  };

  const onConfirm = async () => {
    if (!confirming) return;
    setBusy(true);
    setModalError(null);
    try {
      const saved = await disconnectPlatform(confirming.platform);
      onSaved(saved);
      void queryClient.invalidateQueries({ queryKey: TICKETS_QUERY_KEY });
      setStatus({ tone: 'success', text: t('profile.linked.disconnected', { platform: confirming.name }) });
      close();
    } catch (error) {
      setModalError(apiErrorText(t, i18n, error, 'profile.linked.failed'));
    } finally {
      setBusy(false);
    }
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
                  href={`/api/connect/${platform}`}
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
            <Button variant="danger" busy={busy} onClick={onConfirm}>
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
