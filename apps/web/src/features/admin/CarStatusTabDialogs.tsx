/**
 * The confirmations of the admin car actions (spec §6): generate a code (then shows it), kick the
 * driver, reboot, shut down, delete, rotate the secret (then shows it once), and adding a car
 * (then shows its secret once). Errors show the server's text, else the action's fallback (§8).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AdminCar } from '@telerace/protocol';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import type { TranslationKey } from '../../i18n';
import { displayName } from '../../lib/username';
import { apiErrorText } from '../auth/error-text';
import { TextField } from '../auth/form-fields';
import {
  createCar,
  deleteCar,
  generateCode,
  invalidateCars,
  kickDriver,
  rotateSecret,
  sendCommand,
} from '../cars/admin-cars-api';

export type CarActionKind = 'generateCode' | 'kick' | 'reboot' | 'shutdown' | 'rotateSecret' | 'delete';
export interface CarAction {
  kind: CarActionKind;
  car: AdminCar;
}

const DANGER: Record<CarActionKind, boolean> = {
  generateCode: false,
  kick: true,
  reboot: false,
  shutdown: true,
  rotateSecret: true,
  delete: true,
};

/** Runs the action; resolves with the value to show afterwards (code, secret) when there is one. */
async function run({ kind, car }: CarAction): Promise<string | null> {
  switch (kind) {
    case 'generateCode':
      return generateCode(car.id);
    case 'kick':
      await kickDriver(car.id);
      return null;
    case 'reboot':
    case 'shutdown':
      await sendCommand(car.id, kind);
      return null;
    case 'rotateSecret':
      return rotateSecret(car.id);
    case 'delete':
      await deleteCar(car.id);
      return null;
  }
}

/** The fallback when the server gave no usable text (spec §8). */
const FAILED: Record<Exclude<CarActionKind, 'reboot' | 'shutdown'>, TranslationKey> = {
  generateCode: 'carStatus.actions.generateCodeFailed',
  kick: 'carStatus.actions.kickFailed',
  rotateSecret: 'carStatus.actions.rotateSecretFailed',
  delete: 'carStatus.actions.deleteFailed',
};

/** A value shown once (code or secret) with a copy button. */
export function OneTimeValue({ value, label, testId }: { value: string; label: string; testId: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <div>
      <p className="mb-1.5 text-sm font-semibold">{label}</p>
      <div className="flex items-stretch gap-2">
        <code
          data-testid={testId}
          className="min-w-0 flex-1 rounded-lg border border-line bg-bg px-3 py-2 font-mono text-base font-bold break-all select-all"
        >
          {value}
        </code>
        <Button variant="secondary" onClick={() => void copy()}>
          {t('carStatus.copy')}
        </Button>
      </div>
      <p className="mt-1 min-h-4 text-xs text-muted" aria-live="polite">
        {copied === 'yes' ? t('carStatus.copied') : copied === 'no' ? t('carStatus.copyFailed') : ''}
      </p>
    </div>
  );
}

/** The car tab's dialogs: small, closed by Escape, the backdrop or their footer's buttons. */
function CarDialog({
  title,
  description,
  onClose,
  footer,
  children,
}: {
  title: string;
  description?: string;
  onClose: () => void;
  footer: ReactNode;
  children: ReactNode;
}) {
  return (
    <Modal open onClose={onClose} size="sm" title={title} description={description} footer={footer}>
      {children}
    </Modal>
  );
}

/** A car dialog with Cancel beside its one action (confirm a car action, add a car). */
function CancellableDialog({
  action,
  ...dialog
}: {
  title: string;
  description?: string;
  onClose: () => void;
  action: ReactNode;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <CarDialog
      {...dialog}
      footer={
        <>
          <Button variant="secondary" onClick={dialog.onClose}>
            {t('carStatus.cancel')}
          </Button>
          {action}
        </>
      }
    />
  );
}

/** What an action gave back (a control code, a car's secret), shown until the admin is done. */
function RevealDialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <CarDialog
      title={title}
      onClose={onClose}
      footer={<Button onClick={onClose}>{t('carStatus.done')}</Button>}
    >
      <div className="space-y-3">{children}</div>
    </CarDialog>
  );
}

/** A car's secret: the server keeps only its hash, so this is the one time it can be copied. */
function CarSecret({ secret }: { secret: string }) {
  const { t } = useTranslation();
  return (
    <>
      <OneTimeValue value={secret} label={t('carStatus.secretLabel')} testId="car-secret" />
      <Alert tone="warning">{t('carStatus.secretOnce')}</Alert>
    </>
  );
}

export interface CarActionDialogProps {
  action: CarAction | null;
  onClose: () => void;
  /** Called once the server accepted (the cars' queries are invalidated); with a notice for the page when the dialog closes at once. */
  onDone: (notice: string | null) => void;
}

export function CarActionDialog({ action, onClose, onDone }: CarActionDialogProps) {
  if (!action) return null;
  return (
    <ActionDialog key={`${action.kind}-${action.car.id}`} action={action} onClose={onClose} onDone={onDone} />
  );
}

function ActionDialog({ action, onClose, onDone }: CarActionDialogProps & { action: CarAction }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const { kind, car } = action;
  const params = { name: car.name, driver: car.username ? displayName(car.username) : '—' };
  const mutation = useMutation({
    mutationFn: () => run(action),
    onSuccess: (value) => {
      invalidateCars(queryClient);
      // A value (code, secret) is shown here; otherwise the dialog closes with a notice.
      onDone(value !== null ? null : t(`carStatus.actions.${kind}Done`, params));
    },
  });
  const shown = mutation.isSuccess ? mutation.data : null;
  const busy = mutation.isPending || (mutation.isSuccess && shown === null);
  const failure = mutation.error;
  const error = !failure
    ? null
    : kind === 'reboot' || kind === 'shutdown'
      ? t('carStatus.actions.commandFailed', { detail: apiErrorText(t, i18n, failure, 'errors.unexpected') })
      : apiErrorText(t, i18n, failure, FAILED[kind]);

  const confirm = () => {
    if (!busy) mutation.mutate();
  };

  if (shown !== null) {
    const isSecret = kind === 'rotateSecret';
    return (
      <RevealDialog
        title={t(isSecret ? 'carStatus.secretTitle' : 'carStatus.codeTitle', params)}
        onClose={onClose}
      >
        {isSecret ? (
          <CarSecret secret={shown} />
        ) : (
          <>
            <OneTimeValue value={shown} label={t('carStatus.codeLabel')} testId="control-code" />
            <p className="text-sm text-muted">{t('carStatus.codeHint')}</p>
          </>
        )}
      </RevealDialog>
    );
  }

  return (
    <CancellableDialog
      title={t(`carStatus.actions.${kind}Title`, params)}
      description={t(`carStatus.actions.${kind}Text`, params)}
      onClose={onClose}
      action={
        <Button variant={DANGER[kind] ? 'danger' : 'primary'} busy={busy} onClick={confirm}>
          {t(`carStatus.actions.${kind}`)}
        </Button>
      }
    >
      {error && <Alert tone="error">{error}</Alert>}
    </CancellableDialog>
  );
}

const IMAGE_URL = /^(\/(?!\/)|https?:\/\/)/;

export function AddCarDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  if (!open) return null;
  return <AddCar onClose={onClose} />;
}

function AddCar({ onClose }: { onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const formId = useId();
  const [name, setName] = useState('');
  const [imageUrl, setImageUrl] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [imageError, setImageError] = useState<string | null>(null);
  const creation = useMutation({
    mutationFn: ({ carName, url }: { carName: string; url: string | null }) => createCar(carName, url),
    onSuccess: () => invalidateCars(queryClient),
  });
  const busy = creation.isPending;
  const error = creation.error ? apiErrorText(t, i18n, creation.error, 'carStatus.add.failed') : null;
  const created = creation.data
    ? { name: creation.data.car.name, secret: creation.data.secret, id: creation.data.car.id }
    : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const trimmedName = name.trim();
    const trimmedUrl = imageUrl.trim();
    const badName = trimmedName === '' ? t('carStatus.add.nameRequired') : null;
    const badUrl = trimmedUrl !== '' && !IMAGE_URL.test(trimmedUrl) ? t('carStatus.add.imageInvalid') : null;
    setNameError(badName);
    setImageError(badUrl);
    if (badName || badUrl) return;
    creation.mutate({ carName: trimmedName, url: trimmedUrl === '' ? null : trimmedUrl });
  };

  if (created) {
    return (
      <RevealDialog title={t('carStatus.add.createdTitle', { name: created.name })} onClose={onClose}>
        <p className="text-sm text-muted">{t('carStatus.add.createdText', { id: created.id })}</p>
        <CarSecret secret={created.secret} />
      </RevealDialog>
    );
  }

  return (
    <CancellableDialog
      title={t('carStatus.add.title')}
      onClose={onClose}
      action={
        <Button type="submit" form={formId} busy={busy}>
          {t('carStatus.add.submit')}
        </Button>
      }
    >
      <form id={formId} noValidate onSubmit={onSubmit} className="space-y-4">
        <TextField
          label={t('carStatus.add.name')}
          name="name"
          maxLength={60}
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={nameError ?? undefined}
          autoComplete="off"
        />
        <TextField
          label={t('carStatus.add.image')}
          name="image_url"
          type="url"
          inputMode="url"
          placeholder="https://…"
          hint={t('carStatus.add.imageHint')}
          value={imageUrl}
          onChange={(event) => setImageUrl(event.target.value)}
          error={imageError ?? undefined}
        />
        {error && <Alert tone="error">{error}</Alert>}
      </form>
    </CancellableDialog>
  );
}
