/** The admin page (spec §2): Race Control, Car Status, Users, Login History and Integrations (issue 14) tabs. */
import { useTranslation } from 'react-i18next';
import { Panel } from '../components/ui/Panel';
import { AdminTabs } from '../features/admin/AdminTabs';
import { CarStatusTab } from '../features/admin/CarStatusTab';
import { IntegrationsTab } from '../features/admin/IntegrationsTab';
import { LoginsTab } from '../features/admin/LoginsTab';
import { RaceControlTab } from '../features/admin/RaceControlTab';
import { UsersTab } from '../features/admin/UsersTab';

export default function Admin() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-6xl">
      <Panel level={1} eyebrow={t('admin.eyebrow')} title={t('screens.admin')}>
        <AdminTabs
          label={t('admin.tabsLabel')}
          tabs={[
            {
              id: 'race-control',
              label: t('admin.tabs.raceControl'),
              render: () => <RaceControlTab />,
            },
            {
              id: 'car-status',
              label: t('admin.tabs.carStatus'),
              render: () => <CarStatusTab />,
            },
            { id: 'users', label: t('admin.tabs.users'), render: () => <UsersTab /> },
            { id: 'logins', label: t('admin.tabs.logins'), render: () => <LoginsTab /> },
            {
              id: 'integrations',
              label: t('admin.tabs.integrations'),
              render: () => <IntegrationsTab />,
            },
          ]}
        />
      </Panel>
    </div>
  );
}
