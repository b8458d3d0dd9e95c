/** The admin Users tab (spec §2, §6): the members, paged and refreshed every 5 s, with their actions. */

import type { AdminUser } from '@telerace/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PagedTable } from '../../components/table/PagedTable';
import { TimeAgoCell } from '../../components/table/TimeAgoCell';
import { bodyCell } from '../../components/table/table-styles';
import { usePagedQuery } from '../../components/table/use-paged-query';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { displayName, usernameSuffix } from '../../lib/username';
import { useAuth } from '../auth/auth-context';
import { ADMIN_USERS_KEY, fetchUsers } from './admin-api';
import { type UserAction, UserActionDialog, type UserActionKind } from './UserActionDialog';
import { YesNo } from './YesNo';

/** Compact buttons: four of them share one table cell. */
const ACTION = 'h-8! px-2! text-xs!';

/** One row action; `selfHint` disables it and says why (an admin's own account). */
function ActionButton({
  kind,
  danger = false,
  selfHint,
  onAction,
}: {
  kind: UserActionKind;
  danger?: boolean;
  selfHint?: string;
  onAction: (kind: UserActionKind) => void;
}) {
  const { t } = useTranslation();
  return (
    <Button
      variant={danger ? 'ghost' : 'secondary'}
      size="sm"
      className={danger ? `${ACTION} text-danger!` : ACTION}
      disabled={selfHint !== undefined}
      title={selfHint}
      onClick={() => onAction(kind)}
    >
      {t(`admin.actions.${kind}`)}
    </Button>
  );
}

function RowActions({
  user,
  isSelf,
  onAction,
}: {
  user: AdminUser;
  isSelf: boolean;
  onAction: (kind: UserActionKind) => void;
}) {
  const { t } = useTranslation();
  const selfHint = isSelf ? t('admin.actions.selfHint') : undefined;
  return (
    <fieldset className="grid grid-cols-[auto_auto] gap-1 2xl:flex" aria-label={displayName(user.username)}>
      <ActionButton kind={user.is_banned ? 'unban' : 'ban'} selfHint={selfHint} onAction={onAction} />
      <ActionButton
        kind={user.is_admin ? 'removeAdmin' : 'makeAdmin'}
        selfHint={selfHint}
        onAction={onAction}
      />
      <ActionButton kind="adjust" onAction={onAction} />
      <ActionButton kind="delete" danger selfHint={selfHint} onAction={onAction} />
    </fieldset>
  );
}

export function UsersTab() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const paged = usePagedQuery(ADMIN_USERS_KEY, fetchUsers);
  const [action, setAction] = useState<UserAction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const now = new Date();

  return (
    <PagedTable
      paged={paged}
      rowsOf={(data) => data.users}
      texts={{
        caption: t('admin.users.caption'),
        pager: t('admin.tabs.users'),
        loadFailed: t('admin.users.loadFailed'),
        empty: t('admin.users.empty'),
      }}
      columns={[
        { label: t('admin.users.id') },
        { label: t('admin.users.username') },
        { label: t('admin.users.email') },
        { label: t('admin.users.tickets'), numeric: true },
        { label: t('admin.users.admin') },
        { label: t('admin.users.banned') },
        { label: t('admin.users.lastLogin') },
        { label: t('admin.users.actions') },
      ]}
      above={notice && <Alert tone="success">{notice}</Alert>}
      below={
        <UserActionDialog
          action={action}
          onClose={() => setAction(null)}
          onDone={(message) => {
            setAction(null);
            setNotice(message);
          }}
        />
      }
    >
      {(user) => {
        const isSelf = user.id === me?.id;
        return (
          <tr key={user.id} data-testid={`admin-user-${user.id}`} className="hover:bg-surface-2/50">
            <td className={`${bodyCell} text-muted tabular-nums`}>{user.id}</td>
            <th scope="row" className={`${bodyCell} max-w-40 truncate font-semibold`} title={user.username}>
              {displayName(user.username)}
              <span className="ml-1 font-mono text-xs font-normal text-muted">
                {usernameSuffix(user.username)}
              </span>
              {isSelf && <span className="ml-1.5 text-xs font-normal text-accent-2">({t('admin.you')})</span>}
            </th>
            <td className={`${bodyCell} max-w-36 truncate`} title={user.email ?? undefined}>
              {user.email ?? '—'}
            </td>
            <td className={`${bodyCell} text-right font-semibold tabular-nums`}>
              {user.tickets}
              {user.ticket_adjustment !== 0 && (
                <span className="block text-xs font-normal text-muted">
                  ({user.ticket_adjustment > 0 ? '+' : ''}
                  {user.ticket_adjustment})
                </span>
              )}
            </td>
            <td className={bodyCell}>
              <YesNo value={user.is_admin} />
            </td>
            <td className={bodyCell}>
              <YesNo value={user.is_banned} alarming />
            </td>
            <TimeAgoCell at={user.last_login_at} now={now} />
            <td className={bodyCell}>
              <RowActions
                user={user}
                isSelf={isSelf}
                onAction={(kind) => {
                  setNotice(null);
                  setAction({ kind, user });
                }}
              />
            </td>
          </tr>
        );
      }}
    </PagedTable>
  );
}
