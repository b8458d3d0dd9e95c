/**
 * The admin Car Status tab (spec §2, §6): every car, refreshed every 5 s, with its online state,
 * driver and session end, control code, last telemetry, and the actions on it (after a
 * confirmation, or in the speed and trim dialog); adding a car; and the driving session duration.
 * Each car is one row model (CarStatusRow.tsx) drawn as a card or a table row (CarStatusLayouts.tsx).
 */
import { useQuery } from '@tanstack/react-query';
import { TIMERS_MS } from '@telerace/protocol';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TableEmpty, TableLoading } from '../../components/table/table-states';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { ADMIN_CARS_KEY, fetchAdminCars } from '../cars/admin-cars-api';
import { CarCards, CarTable } from './CarStatusLayouts';
import { type CarRow, carRow, type RowActionKind } from './CarStatusRow';
import { CarConfigDialog } from './CarStatusTabConfig';
import { AddCarDialog, type CarAction, CarActionDialog } from './CarStatusTabDialogs';
import { SessionDurationSettings } from './CarStatusTabSettings';

export function CarStatusTab() {
  const { t, i18n } = useTranslation();
  const query = useQuery({
    queryKey: ADMIN_CARS_KEY,
    queryFn: fetchAdminCars,
    refetchInterval: TIMERS_MS.adminRefresh,
  });
  const [action, setAction] = useState<CarAction | null>(null);
  const [configCarId, setConfigCarId] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const now = new Date();
  const rows = (query.data ?? []).map((car) => carRow(t, car, now, i18n.resolvedLanguage));
  const openAction = (kind: RowActionKind, { car }: CarRow) => {
    setNotice(null);
    if (kind === 'speedAndTrim') setConfigCarId(car.id);
    else setAction({ kind, car });
  };

  let table: ReactNode;
  if (query.isPending) {
    table = <TableLoading />;
  } else if (query.isError && !query.data) {
    table = <Alert tone="error">{t('carStatus.loadFailed')}</Alert>;
  } else if (query.data.length === 0) {
    table = <TableEmpty>{t('carStatus.empty')}</TableEmpty>;
  } else {
    table = (
      <>
        {query.isError && <Alert tone="warning">{t('carStatus.loadFailed')}</Alert>}
        <CarCards rows={rows} now={now} onAction={openAction} />
        <CarTable rows={rows} now={now} onAction={openAction} />
      </>
    );
  }

  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-muted">{t('carStatus.intro')}</p>
        <Button
          onClick={() => {
            setNotice(null);
            setAdding(true);
          }}
        >
          {t('carStatus.add.open')}
        </Button>
      </div>
      {notice && <Alert tone="success">{notice}</Alert>}
      {table}
      <SessionDurationSettings />
      <CarActionDialog
        action={action}
        onClose={() => setAction(null)}
        onDone={(message) => {
          if (message !== null) {
            setAction(null);
            setNotice(message);
          }
        }}
      />
      {configCarId !== null && (
        <CarConfigDialog
          key={configCarId}
          car={query.data?.find((car) => car.id === configCarId)}
          onClose={() => setConfigCarId(null)}
        />
      )}
      <AddCarDialog open={adding} onClose={() => setAdding(false)} />
    </div>
  );
}
