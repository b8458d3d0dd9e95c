/**
 * The Car Status tab's two layouts of the same rows (CarStatusRow.tsx): a card per car on a phone,
 * every action in view; a table on a wider screen, the actions behind one menu per row.
 */
import { useTranslation } from 'react-i18next';
import { bodyCell, headCell } from '../../components/table/table-styles';
import { buttonClasses } from '../../components/ui/button-styles';
import { MenuButton } from '../../components/ui/MenuButton';
import { ScrollTable } from '../../components/ui/ScrollTable';
import type { TranslationKey } from '../../i18n';
import { StatusBadge } from '../cars/StatusBadge';
import {
  ACTION,
  actionClasses,
  CAR_FIELDS,
  CarIdentity,
  type CarRow,
  type RowActionKind,
} from './CarStatusRow';

export interface CarRowsProps {
  rows: CarRow[];
  now: Date;
  onAction: (kind: RowActionKind, row: CarRow) => void;
}

/** A phone's card: every action in view, two or three columns. */
function RowActions({ row, onAction }: { row: CarRow; onAction: (kind: RowActionKind) => void }) {
  const { t } = useTranslation();
  return (
    <fieldset
      className="grid grid-cols-[repeat(2,max-content)] gap-1 xl:grid-cols-[repeat(3,max-content)]"
      aria-label={row.car.name}
    >
      {row.actions.map(({ kind, disabled, title, danger }) => (
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
function RowActionsMenu({ row, onAction }: { row: CarRow; onAction: (kind: RowActionKind) => void }) {
  const { t } = useTranslation();
  const { car } = row;
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
      items={row.actions.map(({ kind, disabled, title, danger }) => ({
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

/** Phones: one card per car instead of a table wider than the screen. */
export function CarCards({ rows, now, onAction }: CarRowsProps) {
  const { t } = useTranslation();
  return (
    <ul className="space-y-3 md:hidden" aria-label={t('carStatus.caption')}>
      {rows.map((row) => (
        <li
          key={row.car.id}
          className="rounded-xl border border-line bg-surface p-3"
          data-testid={`admin-car-card-${row.car.id}`}
        >
          <div className="flex items-center gap-3">
            <CarIdentity car={row.car} />
            <StatusBadge online={row.online} />
          </div>
          <dl className="mt-3 grid grid-cols-2 gap-x-3 gap-y-2 text-sm">
            {CAR_FIELDS.map((field) => (
              <div key={field.key} className={field.wide ? 'col-span-2' : undefined}>
                <dt className="text-xs font-semibold text-muted">{t(field.header)}</dt>
                <dd>{field.cell(row, now, 'card')}</dd>
              </div>
            ))}
          </dl>
          <div className="mt-3 border-t border-line pt-3">
            <RowActions row={row} onAction={(kind) => onAction(kind, row)} />
          </div>
        </li>
      ))}
    </ul>
  );
}

/** Wider screens: one row per car. */
export function CarTable({ rows, now, onAction }: CarRowsProps) {
  const { t } = useTranslation();
  const headers: TranslationKey[] = [
    'carStatus.car',
    'carStatus.status',
    ...CAR_FIELDS.map((field) => field.header),
    'carStatus.actionsHeader',
  ];
  return (
    <ScrollTable label={t('carStatus.caption')} className="hidden md:block">
      <thead>
        <tr>
          {headers.map((header) => (
            <th key={header} scope="col" className={headCell}>
              {t(header)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-line">
        {rows.map((row) => (
          <tr key={row.car.id} data-testid={`admin-car-${row.car.id}`} className="hover:bg-surface-2/50">
            <th scope="row" className={`${bodyCell} min-w-44 font-semibold`}>
              <CarIdentity car={row.car} compact />
            </th>
            <td className={bodyCell}>
              <StatusBadge online={row.online} />
            </td>
            {CAR_FIELDS.map((field) => (
              <td key={field.key} className={field.tableClass ? `${bodyCell} ${field.tableClass}` : bodyCell}>
                {field.cell(row, now, 'table')}
              </td>
            ))}
            <td className={bodyCell}>
              <RowActionsMenu row={row} onAction={(kind) => onAction(kind, row)} />
            </td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}
