/** The admin Login History tab: who logged in, when and from where; paged and refreshed every 5 s. */
import { useTranslation } from 'react-i18next';
import { PagedTable } from '../../components/table/PagedTable';
import { TimeAgoCell } from '../../components/table/TimeAgoCell';
import { bodyCell } from '../../components/table/table-styles';
import { usePagedQuery } from '../../components/table/use-paged-query';
import { displayName, usernameSuffix } from '../../lib/username';
import { ADMIN_LOGINS_KEY, fetchLogins } from './admin-api';

export function LoginsTab() {
  const { t } = useTranslation();
  const paged = usePagedQuery(ADMIN_LOGINS_KEY, fetchLogins);
  const now = new Date();

  return (
    <PagedTable
      paged={paged}
      rowsOf={(data) => data.logins}
      texts={{
        caption: t('admin.logins.caption'),
        pager: t('admin.tabs.logins'),
        loadFailed: t('admin.logins.loadFailed'),
        empty: t('admin.logins.empty'),
      }}
      columns={[
        { label: t('admin.logins.time') },
        { label: t('admin.logins.username') },
        { label: t('admin.logins.ip') },
      ]}
    >
      {(login) => (
        <tr key={login.id} className="hover:bg-surface-2/50">
          <TimeAgoCell at={login.created_at} now={now} />
          <td className={`${bodyCell} font-semibold whitespace-nowrap`}>
            {displayName(login.username)}
            <span className="ml-1 font-mono text-xs font-normal text-muted">
              {usernameSuffix(login.username)}
            </span>
          </td>
          <td className={`${bodyCell} font-mono text-xs whitespace-nowrap`}>{login.ip}</td>
        </tr>
      )}
    </PagedTable>
  );
}
