/** The admin page (spec §2): Race Control, Car Status, Users and Login History tabs. */
import { useTranslation } from 'react-i18next';
import { Panel } from '../components/ui/Panel';
import { AdminTabs } from '../features/admin/AdminTabs';
import { CarStatusTab } from '../features/admin/CarStatusTab';
import { LoginsTab } from '../features/admin/LoginsTab';
import { UsersTab } from '../features/admin/UsersTab';

function LaterPanel({ text }: { text: string }) {
  const { t } = useTranslation();
  return (
    <div className="relative overflow-hidden rounded-xl border border-dashed border-line px-5 py-10 text-center">
      <div
        className="checkered pointer-events-none absolute -top-10 right-0 h-20 w-36 opacity-40 [mask-image:linear-gradient(to_left,black,transparent)]"
        aria-hidden="true"
      />
      <p className="relative font-display text-lg font-black italic">{t('admin.comingSoon.title')}</p>
      <p className="relative mt-1 text-sm text-muted">{text}</p>
    </div>
  );
}

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
              render: () => <LaterPanel text={t('admin.comingSoon.raceControl')} />,
            },
            {
              id: 'car-status',
              label: t('admin.tabs.carStatus'),
              render: () => <CarStatusTab />,
            },
            { id: 'users', label: t('admin.tabs.users'), render: () => <UsersTab /> },
            { id: 'logins', label: t('admin.tabs.logins'), render: () => <LoginsTab /> },
          ]}
        />
      </Panel>
    </div>
  );
}
