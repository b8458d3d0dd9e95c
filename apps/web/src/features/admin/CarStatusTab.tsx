/**
 * The admin Car Status tab (spec §2, §6): every car, refreshed every 5 s, with its online state,
 * driver and session end, control code, last telemetry, and the actions on it (after a
 * confirmation, or in the speed and trim dialog); adding a car; and the driving session duration.
 */
import { useQuery } from '@tanstack/react-query';
import { type AdminCar, TIMERS_MS } from '@telerace/protocol';
import type { TFunction } from 'i18next';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TableEmpty, TableLoading } from '../../components/table/table-states';
import { bodyCell, headCell } from '../../components/table/table-styles';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { buttonClasses } from '../../components/ui/button-styles';
import { MenuButton } from '../../components/ui/MenuButton';
import { ScrollTable } from '../../components/ui/ScrollTable';
import { formatRelativeTime } from '../../lib/relative-time';
import { displayName } from '../../lib/username';
import { ADMIN_CARS_KEY, fetchAdminCars } from '../cars/admin-cars-api';
import { CarImage } from '../cars/CarImage';
import { StatusBadge } from '../cars/StatusBadge';
import { CarConfigDialog } from './CarStatusTabConfig';
import { AddCarDialog, type CarAction, CarActionDialog, type CarActionKind } from './CarStatusTabDialogs';
import { LapCounterIdField } from './CarStatusTabLapCounter';
import { CarLinkSummary } from './CarStatusTabLink';
import { SessionDurationSettings } from './CarStatusTabSettings';

const ACTION = 'h-8! px-2! text-xs!';

/** A row's buttons: the confirmed actions, and the speed and trim dialog. */
type RowActionKind = CarActionKind | 'speedAndTrim';

/** "22:51 · in 8 min", or "Ended" once past. */
function sessionEndText(t: TFunction, iso: string, now: number, language: string | undefined) {
  const end = new Date(iso);
  if (Number.isNaN(end.getTime())) return { text: '—', title: undefined };
  const title = end.toLocaleString(language);
  const left = end.getTime() - now;
  if (left <= 0) return { text: t('carStatus.sessionEnded'), title };
  const time = end.toLocaleTimeString(language, { hour: '2-digit', minute: '2-digit' });
  return { text: t('carStatus.endsIn', { time, count: Math.ceil(left / 60_000) }), title };
}

/**
 * The control code and how long it still opens the car ("expires in 12 min", "Expired"). A code
 * also dies after 10 wrong tries; the server then lists no code at all.
 */
function CodeCell({ car, now, large }: { car: AdminCar; now: Date; large?: boolean }) {
  const { t } = useTranslation();
  if (!car.control_code) return <span className="text-muted">—</span>;
  const expiresAt = car.control_code_expires_at
    ? new Date(car.control_code_expires_at).getTime()
    : Number.NaN;
  const left = expiresAt - now.getTime();
  const expired = !Number.isNaN(left) && left <= 0;
  return (
    <>
      <code
        className={
          large
            ? 'font-mono font-bold tracking-widest'
            : 'rounded bg-surface-2 px-1.5 py-0.5 font-mono text-sm font-bold tracking-widest'
        }
      >
        {expired ? <s>{car.control_code}</s> : car.control_code}
      </code>
      {!Number.isNaN(left) && (
        <span className={`block text-xs ${expired ? 'font-semibold text-danger' : 'text-muted'}`}>
          {expired
            ? t('carStatus.codeExpired')
            : t('carStatus.codeExpiresIn', { count: Math.ceil(left / 60_000) })}
        </span>
      )}
    </>
  );
}

interface RowAction {
  kind: RowActionKind;
  disabled?: boolean;
  /** Why it is disabled. */
  title?: string;
  danger?: boolean;
}

/** A car's actions, and which of them its state rules out. */
function rowActions(t: TFunction, car: AdminCar): RowAction[] {
  const online = car.status === 'online';
  const offlineHint = online ? undefined : t('carStatus.offlineHint');
  const noDriver = car.current_user_id === null;
  return [
    { kind: 'generateCode' },
    { kind: 'kick', disabled: noDriver, title: noDriver ? t('carStatus.noDriverHint') : undefined },
    { kind: 'reboot', disabled: !online, title: offlineHint },
    { kind: 'shutdown', disabled: !online, title: offlineHint },
    { kind: 'rotateSecret' },
    { kind: 'delete', danger: true },
    { kind: 'speedAndTrim' },
  ];
}

const actionClasses = (danger?: boolean) =>
  buttonClasses(danger ? 'ghost' : 'secondary', 'sm', danger ? `${ACTION} text-danger!` : ACTION);

/** A phone's card: every action in view, two or three columns. */
function RowActions({ car, onAction }: { car: AdminCar; onAction: (kind: RowActionKind) => void }) {
  const { t } = useTranslation();
  return (
    <fieldset
      className="grid grid-cols-[repeat(2,max-content)] gap-1 xl:grid-cols-[repeat(3,max-content)]"
      aria-label={car.name}
    >
      {rowActions(t, car).map(({ kind, disabled, title, danger }) => (
        <button
          key={kind}
          type="button"
          className={actionClasses(danger)}
          disabled={disabled}
          title={title}
          onClick={() => onAction(kind)}
        >
          {t(`carStatus.actions.${kind}`)}
        </button>
      ))}
    </fieldset>
  );
}

/**
 * The table's actions, behind one "Actions" button per row: seven buttons side by side pushed the
 * table past 1280 px, in French even more. The menu floats over the table rather than inside it,
 * whose scrolling box cut it after two actions (issue 41 point 10).
 */
function RowActionsMenu({ car, onAction }: { car: AdminCar; onAction: (kind: RowActionKind) => void }) {
  const { t } = useTranslation();
  return (
    <MenuButton
      label={
        <>
          {t('carStatus.actionsHeader')}
          <span aria-hidden="true">▾</span>
        </>
      }
      menuLabel={t('carStatus.actionsFor', { name: car.name })}
      testId={`car-actions-${car.id}`}
      buttonClassName={buttonClasses('secondary', 'sm', ACTION)}
      itemClassName={(item) => actionClasses(item.danger)}
      items={rowActions(t, car).map(({ kind, disabled, title, danger }) => ({
        key: kind,
        label: t(`carStatus.actions.${kind}`),
        onSelect: () => onAction(kind),
        disabled,
        title,
        danger,
      }))}
    />
  );
}

function TelemetryCell({ car, now }: { car: AdminCar; now: Date }) {
  const { t, i18n } = useTranslation();
  const telemetry = car.last_telemetry;
  if (!telemetry) return <span className="text-muted">{t('carStatus.noTelemetry')}</span>;
  const format = (value: number, digits: number) =>
    new Intl.NumberFormat(i18n.resolvedLanguage, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(value);
  return (
    <div className="space-y-0.5 text-xs tabular-nums">
      <div>
        <span className="text-muted">{t('control.telemetry.speed')} </span>
        {telemetry.speed === undefined
          ? '—'
          : t('control.telemetry.speedValue', { value: format(telemetry.speed, 2) })}
      </div>
      <div>
        <span className="text-muted">{t('control.telemetry.battery')} </span>
        <span
          className={
            telemetry.battery !== undefined && telemetry.battery < 20
              ? 'font-semibold text-danger'
              : undefined
          }
        >
          {telemetry.battery === undefined
            ? '—'
            : t('control.telemetry.batteryValue', { value: format(telemetry.battery, 0) })}
        </span>
      </div>
      <CarLinkSummary telemetry={telemetry} />
      <div className="text-muted" title={new Date(telemetry.at).toLocaleString(i18n.resolvedLanguage)}>
        {formatRelativeTime(t, telemetry.at, now)}
      </div>
    </div>
  );
}

/** Phones: one card per car instead of a table wider than the screen. */
function CarCardCompact({
  car,
  now,
  onAction,
}: {
  car: AdminCar;
  now: Date;
  onAction: (kind: RowActionKind) => void;
}) {
  const { t, i18n } = useTranslation();
  const end = car.session_ends_at
    ? sessionEndText(t, car.session_ends_at, now.getTime(), i18n.resolvedLanguage)
    : null;
  return (
    <li className="rounded-xl border border-line bg-surface p-3" data-testid={`admin-car-card-${car.id}`}>
      <div className="flex items-center gap-3">
        <div className="h-12 w-20 shrink-0 overflow-hidden rounded-md border border-line">
          <CarImage src={car.image_url} />
        </div>
        <div className="min-w-0 flex-1">
          <p className="truncate font-semibold">{car.name}</p>
          <p className="font-mono text-xs text-muted">
            #{car.id} · {t('carStatus.stream', { id: car.stream_id })}
          </p>
        </div>
        <StatusBadge online={car.status === 'online'} />
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-x-3 gap-y-2 text-sm">
        <div>
          <dt className="text-xs font-semibold text-muted">{t('carStatus.driver')}</dt>
          <dd>
            {car.current_user_id === null ? (
              <span className="text-muted">{t('carStatus.noDriver')}</span>
            ) : (
              <>
                <span className="font-semibold">{displayName(car.username ?? '—')}</span>
                {end && (
                  <span className="block text-xs text-muted" title={end.title}>
                    {end.text}
                  </span>
                )}
              </>
            )}
          </dd>
        </div>
        <div>
          <dt className="text-xs font-semibold text-muted">{t('carStatus.code')}</dt>
          <dd>
            <CodeCell car={car} now={now} large />
          </dd>
        </div>
        <div className="col-span-2">
          <dt className="text-xs font-semibold text-muted">{t('carStatus.telemetry')}</dt>
          <dd>
            <TelemetryCell car={car} now={now} />
          </dd>
        </div>
        <div className="col-span-2">
          <dt className="text-xs font-semibold text-muted">{t('carStatus.lapCounter.header')}</dt>
          <dd>
            <LapCounterIdField car={car} />
          </dd>
        </div>
      </dl>
      <div className="mt-3 border-t border-line pt-3">
        <RowActions car={car} onAction={onAction} />
      </div>
    </li>
  );
}

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
  const openAction = (kind: RowActionKind, car: AdminCar) => {
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
        <ul className="space-y-3 md:hidden" aria-label={t('carStatus.caption')}>
          {query.data.map((car) => (
            <CarCardCompact key={car.id} car={car} now={now} onAction={(kind) => openAction(kind, car)} />
          ))}
        </ul>
        <ScrollTable label={t('carStatus.caption')} className="hidden md:block">
          <thead>
            <tr>
              <th scope="col" className={headCell}>
                {t('carStatus.car')}
              </th>
              <th scope="col" className={headCell}>
                {t('carStatus.status')}
              </th>
              <th scope="col" className={headCell}>
                {t('carStatus.driver')}
              </th>
              <th scope="col" className={headCell}>
                {t('carStatus.code')}
              </th>
              <th scope="col" className={headCell}>
                {t('carStatus.telemetry')}
              </th>
              <th scope="col" className={headCell}>
                {t('carStatus.lapCounter.header')}
              </th>
              <th scope="col" className={headCell}>
                {t('carStatus.actionsHeader')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {query.data.map((car) => {
              const end = car.session_ends_at
                ? sessionEndText(t, car.session_ends_at, now.getTime(), i18n.resolvedLanguage)
                : null;
              return (
                <tr key={car.id} data-testid={`admin-car-${car.id}`} className="hover:bg-surface-2/50">
                  <th scope="row" className={`${bodyCell} min-w-44 font-semibold`}>
                    <div className="flex items-center gap-3">
                      <div className="h-10 w-16 shrink-0 overflow-hidden rounded-md border border-line">
                        <CarImage src={car.image_url} />
                      </div>
                      <div className="min-w-0">
                        <div className="truncate">{car.name}</div>
                        <div className="font-mono text-xs font-normal text-muted">
                          #{car.id} · {t('carStatus.stream', { id: car.stream_id })}
                        </div>
                      </div>
                    </div>
                  </th>
                  <td className={bodyCell}>
                    <StatusBadge online={car.status === 'online'} />
                  </td>
                  <td className={`${bodyCell} min-w-32`}>
                    {car.current_user_id === null ? (
                      <span className="text-muted">{t('carStatus.noDriver')}</span>
                    ) : (
                      <>
                        <div className="font-semibold">{displayName(car.username ?? '—')}</div>
                        {end && (
                          <div className="text-xs text-muted" title={end.title}>
                            {end.text}
                          </div>
                        )}
                      </>
                    )}
                  </td>
                  <td className={bodyCell}>
                    <CodeCell car={car} now={now} />
                  </td>
                  <td className={`${bodyCell} min-w-28`}>
                    <TelemetryCell car={car} now={now} />
                  </td>
                  <td className={bodyCell}>
                    <LapCounterIdField car={car} />
                  </td>
                  <td className={bodyCell}>
                    <RowActionsMenu car={car} onAction={(kind) => openAction(kind, car)} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </ScrollTable>
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
