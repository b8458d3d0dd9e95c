/**
 * One car of the Car Status tab as both layouts show it (CarStatusLayouts.tsx: a card per car on a
 * phone, a table row on a wider screen): the row model (`carRow`: its facts and its actions,
 * computed once) and the cells drawn from it. A fact added here shows in both layouts.
 */
import type { AdminCar } from '@telerace/protocol';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { buttonClasses } from '../../components/ui/button-styles';
import type { TranslationKey } from '../../i18n';
import { formatRelativeTime } from '../../lib/relative-time';
import { displayName } from '../../lib/username';
import { CarImage } from '../cars/CarImage';
import type { CarActionKind } from './CarStatusTabDialogs';
import { LapCounterIdField } from './CarStatusTabLapCounter';
import { CarLinkSummary } from './CarStatusTabLink';

/** A row's buttons: the confirmed actions, and the speed and trim dialog. */
export type RowActionKind = CarActionKind | 'speedAndTrim';

export interface RowAction {
  kind: RowActionKind;
  disabled?: boolean;
  /** Why it is disabled. */
  title?: string;
  danger?: boolean;
}

/** A car's row: what both layouts show of it. */
export interface CarRow {
  car: AdminCar;
  online: boolean;
  /** The driver's name and when their session ends, null without a driver. */
  driver: { name: string; end: { text: string; title: string | undefined } | null } | null;
  actions: RowAction[];
}

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

export function carRow(t: TFunction, car: AdminCar, now: Date, language: string | undefined): CarRow {
  return {
    car,
    online: car.status === 'online',
    driver:
      car.current_user_id === null
        ? null
        : {
            name: displayName(car.username ?? '—'),
            end: car.session_ends_at ? sessionEndText(t, car.session_ends_at, now.getTime(), language) : null,
          },
    actions: rowActions(t, car),
  };
}

export const ACTION = 'h-8! px-2! text-xs!';

export const actionClasses = (danger?: boolean) =>
  buttonClasses(danger ? 'ghost' : 'secondary', 'sm', danger ? `${ACTION} text-danger!` : ACTION);

/** The car's picture, name, id and stream; `compact` for the table. */
export function CarIdentity({ car, compact = false }: { car: AdminCar; compact?: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="flex min-w-0 flex-1 items-center gap-3">
      <div
        className={`${compact ? 'h-10 w-16' : 'h-12 w-20'} shrink-0 overflow-hidden rounded-md border border-line`}
      >
        <CarImage src={car.image_url} />
      </div>
      <div className="min-w-0">
        <div className="truncate font-semibold">{car.name}</div>
        <div className="font-mono text-xs font-normal text-muted">
          #{car.id} · {t('carStatus.stream', { id: car.stream_id })}
        </div>
      </div>
    </div>
  );
}

function DriverCell({ row }: { row: CarRow }) {
  const { t } = useTranslation();
  if (!row.driver) return <span className="text-muted">{t('carStatus.noDriver')}</span>;
  const { name, end } = row.driver;
  return (
    <>
      <div className="font-semibold">{name}</div>
      {end && (
        <div className="text-xs text-muted" title={end.title}>
          {end.text}
        </div>
      )}
    </>
  );
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

/** A fact of the row: a column of the table, an entry of the card's list. */
export interface CarField {
  key: string;
  /** The i18n key of its header. */
  header: TranslationKey;
  cell: (row: CarRow, now: Date, layout: 'card' | 'table') => ReactNode;
  /** The table cell's extra classes (its width). */
  tableClass?: string;
  /** Takes the card's whole width. */
  wide?: boolean;
}

/** The facts between the car (identity, status) and its actions, in both layouts' order. */
export const CAR_FIELDS: readonly CarField[] = [
  {
    key: 'driver',
    header: 'carStatus.driver',
    cell: (row) => <DriverCell row={row} />,
    tableClass: 'min-w-32',
  },
  {
    key: 'code',
    header: 'carStatus.code',
    cell: (row, now, layout) => <CodeCell car={row.car} now={now} large={layout === 'card'} />,
  },
  {
    key: 'telemetry',
    header: 'carStatus.telemetry',
    cell: (row, now) => <TelemetryCell car={row.car} now={now} />,
    tableClass: 'min-w-28',
    wide: true,
  },
  {
    key: 'lapCounter',
    header: 'carStatus.lapCounter.header',
    cell: (row) => <LapCounterIdField car={row.car} />,
    wide: true,
  },
];
