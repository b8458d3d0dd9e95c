/**
 * Account deletion (spec §2: permanent). The confirmation dialog only enables the delete button
 * once the reader ticks "I understand this is permanent"; then the session ends at /login.
 */
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import { useAuth } from '../auth/auth-context';
import { apiErrorText } from '../auth/error-text';
import { deleteAccount } from './profile-api';

export function DangerZone() {
  const { t, i18n } = useTranslation();
  const { logout } = useAuth();
  const checkboxId = useId();
  const [open, setOpen] = useState(false);
  const [understood, setUnderstood] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    setOpen(false);
    setUnderstood(false);
    setError(null);
  };

  const onConfirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await deleteAccount();
    } catch (failure) {
      setError(apiErrorText(t, i18n, failure, 'profile.danger.failed'));
      setBusy(false);
      return;
    }
    await logout();
  };

  return (
    <div className="space-y-4">
      <p className="text-sm text-muted">{t('profile.danger.text')}</p>
      <Button variant="danger" onClick={() => setOpen(true)}>
        {t('profile.danger.delete')}
      </Button>
      <Modal
        open={open}
        onClose={close}
        size="sm"
        title={t('profile.danger.confirmTitle')}
        description={t('profile.danger.confirmText')}
        footer={
          <>
            <Button variant="secondary" onClick={close}>
              {t('profile.cancel')}
            </Button>
            <Button variant="danger" busy={busy} disabled={!understood} onClick={onConfirm}>
              {t('profile.danger.confirm')}
            </Button>
          </>
        }
      >
        <div className="space-y-3">
          <div className="flex items-start gap-3">
            <input
              id={checkboxId}
              type="checkbox"
              checked={understood}
              onChange={(event) => setUnderstood(event.target.checked)}
              className="mt-0.5 size-4 shrink-0 accent-danger"
            />
            <label htmlFor={checkboxId} className="text-sm font-semibold">
              {t('profile.danger.understand')}
            </label>
          </div>
          {error && <Alert tone="error">{error}</Alert>}
        </div>
      </Modal>
    </div>
  );
}
