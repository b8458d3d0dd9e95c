/** The admin Login History tab: who logged in, when and from where; paged and refreshed every 5 s. */
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { ScrollTable } from '../../components/ui/ScrollTable';
import { formatRelativeTime } from '../../lib/relative-time';
import { displayName, usernameSuffix } from '../../lib/username';
import { ADMIN_LOGINS_KEY, fetchLogins } from './admin-api';
import { Pagination } from './Pagination';
import { TableEmpty, TableLoading } from './table-states';
import { bodyCell, headCell } from './table-styles';
import { usePagedQuery } from './use-paged-query';

export function LoginsTab() {
  const { t, i18n } = useTranslation();
  const { query, page, pageSize, setPage, setPageSize } = usePagedQuery(ADMIN_LOGINS_KEY, fetchLogins);
  const now = new Date();

  if (query.isPending) {
    return <TableLoading />;
  }
  if (query.isError && !query.data) return <Alert tone="error">{t('admin.logins.loadFailed')}</Alert>;
  const { logins, totalCount } = query.data;

  return (
    <div className="space-y-4">
      {query.isError && <Alert tone="warning">{t('admin.logins.loadFailed')}</Alert>}
      {logins.length === 0 ? (
        <TableEmpty>{t('admin.logins.empty')}</TableEmpty>
      ) : (
        <ScrollTable label={t('admin.logins.caption')}>
          <thead>
            <tr>
              <th scope="col" className={headCell}>
                {t('admin.logins.time')}
              </th>
              <th scope="col" className={headCell}>
                {t('admin.logins.username')}
              </th>
              <th scope="col" className={headCell}>
                {t('admin.logins.ip')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {logins.map((login) => (
              <tr key={login.id} className="hover:bg-surface-2/50">
                <td
                  className={`${bodyCell} whitespace-nowrap`}
                  title={new Date(login.created_at).toLocaleString(i18n.resolvedLanguage)}
                >
                  {formatRelativeTime(t, login.created_at, now)}
                </td>
                <td className={`${bodyCell} font-semibold whitespace-nowrap`}>
                  {displayName(login.username)}
                  <span className="ml-1 font-mono text-xs font-normal text-muted">
                    {usernameSuffix(login.username)}
                  </span>
                </td>
                <td className={`${bodyCell} font-mono text-xs whitespace-nowrap`}>{login.ip}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <Pagination
        name={t('admin.tabs.logins')}
        page={page}
        pageSize={pageSize}
        totalCount={totalCount}
        onPageChange={setPage}
        onPageSizeChange={setPageSize}
      />
    </div>
  );
}
