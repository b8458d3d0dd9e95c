/**
 * The confirmation of an admin action on a member (spec §6): ban/unban, make/remove admin, adjust
 * tickets (a non-zero whole number: positive adds, negative subtracts) and delete. Errors show
 * the server's text, else the action's fallback (spec §8).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AdminUser } from '@telerace/protocol';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import type { TranslationKey } from '../../i18n';
import { displayName } from '../../lib/username';
import { retryUnreached } from '../../lib/write-retry';
import { apiErrorText } from '../auth/error-text';
import { TextField } from '../auth/form-fields';
import { TICKETS_QUERY_KEY } from '../tickets/tickets-api';
import { ADMIN_USERS_KEY, adjustTickets, deleteUser, setAdmin, setBanned } from './admin-api';

export type UserActionKind = 'ban' | 'unban' | 'makeAdmin' | 'removeAdmin' | 'adjust' | 'delete';
export interface UserAction {
  kind: UserActionKind;
  user: AdminUser;
}

/** Bounds of one adjustment, as the server accepts them. */
export const ADJUST_LIMIT = 10_000;

export function parseAdjustment(text: string): number | null {
  if (!/^\s*[-+]?\d+\s*$/.test(text)) return null;
  const amount = Number(text);
  if (amount === 0 || Math.abs(amount) > ADJUST_LIMIT) return null;
  return amount;
}

const COPY: Record<
  UserActionKind,
  {
    title: TranslationKey;
    text: TranslationKey;
    confirm: TranslationKey;
    done: TranslationKey;
    failed: TranslationKey;
    danger: boolean;
  }
> = {
  ban: {
    title: 'admin.actions.banTitle',
    text: 'admin.actions.banText',
    confirm: 'admin.actions.ban',
    done: 'admin.actions.banned',
    failed: 'admin.actions.banFailed',
    danger: true,
  },
  unban: {
    title: 'admin.actions.unbanTitle',
    text: 'admin.actions.unbanText',
    confirm: 'admin.actions.unban',
    done: 'admin.actions.unbanned',
    failed: 'admin.actions.banFailed',
    danger: false,
  },
  makeAdmin: {
    title: 'admin.actions.makeAdminTitle',
    text: 'admin.actions.makeAdminText',
    confirm: 'admin.actions.makeAdmin',
    done: 'admin.actions.madeAdmin',
    failed: 'admin.actions.adminFailed',
    danger: false,
  },
  removeAdmin: {
    title: 'admin.actions.removeAdminTitle',
    text: 'admin.actions.removeAdminText',
    confirm: 'admin.actions.removeAdmin',
    done: 'admin.actions.removedAdmin',
    failed: 'admin.actions.adminFailed',
    danger: true,
  },
  adjust: {
    title: 'admin.actions.adjustTitle',
    text: 'admin.actions.adjustText',
    confirm: 'admin.actions.adjust',
    done: 'admin.actions.adjusted',
    failed: 'admin.actions.adjustFailed',
    danger: false,
  },
  delete: {
    title: 'admin.actions.deleteTitle',
    text: 'admin.actions.deleteText',
    confirm: 'admin.actions.delete',
    done: 'admin.actions.deleted',
    failed: 'admin.actions.deleteFailed',
    danger: true,
  },
};

function run(action: UserAction, amount: number | null, requestId: string): Promise<void> {
  const { id } = action.user;
  switch (action.kind) {
    case 'ban':
      return setBanned(id, true);
    case 'unban':
      return setBanned(id, false);
    case 'makeAdmin':
      return setAdmin(id, true);
    case 'removeAdmin':
      return setAdmin(id, false);
    case 'adjust':
      return adjustTickets(id, amount ?? 0, requestId);
    case 'delete':
      return deleteUser(id);
  }
}

export interface UserActionDialogProps {
  action: UserAction | null;
  onClose: () => void;
  /** Called with the success message once the server accepted the action. */
  onDone: (message: string) => void;
}

export function UserActionDialog({ action, onClose, onDone }: UserActionDialogProps) {
  if (!action) return null;
  // Keyed so every opening starts with an empty form.
  return (
    <ActionDialog
      key={`${action.kind}-${action.user.id}`}
      action={action}
      onClose={onClose}
      onDone={onDone}
    />
  );
}

function ActionDialog({ action, onClose, onDone }: UserActionDialogProps & { action: UserAction }) {
  const { t, i18n } = useTranslation();
  const formId = useId();
  const [amountText, setAmountText] = useState('');
  const [amountError, setAmountError] = useState<string | null>(null);
  const copy = COPY[action.kind];
  const name = displayName(action.user.username);
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: ({ amount, requestId }: { amount: number | null; requestId: string }) =>
      run(action, amount, requestId),
    // Setting a flag twice sets it once, and an adjustment carries its request id (made per
    // submit, so the retry adjusts once); a deletion sent twice would answer 404.
    retry: (failureCount, failure) => action.kind !== 'delete' && retryUnreached(failureCount, failure),
    onSuccess: (_, { amount }) => {
      void queryClient.invalidateQueries({ queryKey: ADMIN_USERS_KEY });
      // Tickets, admin rights and bans change what the member's own badge shows.
      void queryClient.invalidateQueries({ queryKey: TICKETS_QUERY_KEY });
      const signed = amount !== null && amount > 0 ? `+${amount}` : String(amount);
      onDone(t(copy.done, { name, amount: signed }));
    },
  });
  // The dialog closes on success: the button stays busy until it does.
  const busy = mutation.isPending || mutation.isSuccess;
  const error = mutation.error ? apiErrorText(t, i18n, mutation.error, copy.failed) : null;

  const onSubmit = (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    let amount: number | null = null;
    if (action.kind === 'adjust') {
      amount = parseAdjustment(amountText);
      if (amount === null) {
        setAmountError(t('admin.actions.amountInvalid', { min: -ADJUST_LIMIT, max: ADJUST_LIMIT }));
        return;
      }
      setAmountError(null);
    }
    mutation.mutate({ amount, requestId: crypto.randomUUID() });
  };

  return (
    <Modal
      open
      onClose={onClose}
      size="sm"
      title={t(copy.title, { name })}
      description={t(copy.text, { tickets: action.user.tickets })}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('admin.actions.cancel')}
          </Button>
          <Button type="submit" form={formId} variant={copy.danger ? 'danger' : 'primary'} busy={busy}>
            {t(copy.confirm)}
          </Button>
        </>
      }
    >
      <form id={formId} noValidate onSubmit={onSubmit} className="space-y-3">
        {action.kind === 'adjust' && (
          <TextField
            label={t('admin.actions.amount')}
            name="amount"
            type="number"
            inputMode="numeric"
            step={1}
            min={-ADJUST_LIMIT}
            max={ADJUST_LIMIT}
            value={amountText}
            onChange={(event) => setAmountText(event.target.value)}
            error={amountError ?? undefined}
          />
        )}
        {error && <Alert tone="error">{error}</Alert>}
      </form>
    </Modal>
  );
}
