/** One car of the selection grid: photo, name, online state and who drives it. */
import type { Car } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { cx } from '../../lib/cx';
import { displayName } from '../../lib/username';
import { CarImage } from './CarImage';
import { StatusBadge } from './StatusBadge';

export function CarCard({ car, mine, onSelect }: { car: Car; mine: boolean; onSelect: () => void }) {
  const { t } = useTranslation();
  const online = car.status === 'online';
  const inUse = car.current_user_id !== null;
  const availability = mine
    ? t('cars.yours')
    : inUse
      ? t('cars.inUseBy', { name: displayName(car.username ?? t('cars.someone')) })
      : t('cars.available');
  return (
    <li>
      <button
        type="button"
        onClick={onSelect}
        data-testid={`car-${car.id}`}
        aria-label={`${car.name} — ${online ? t('cars.online') : t('cars.offline')}, ${availability}`}
        className={cx(
          'group flex size-full flex-col overflow-hidden rounded-2xl border border-line bg-surface text-left shadow-sm transition',
          'hover:-translate-y-0.5 hover:border-accent hover:shadow-lg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring',
          !online && 'opacity-80',
        )}
      >
        <div className="relative aspect-video w-full overflow-hidden bg-surface-2">
          <CarImage src={car.image_url} className="transition-transform duration-300 group-hover:scale-105" />
          <StatusBadge online={online} className="absolute top-2 left-2 bg-surface/90 backdrop-blur" />
        </div>
        <div
          className="racing-stripe h-0.5 opacity-0 transition-opacity group-hover:opacity-100"
          aria-hidden="true"
        />
        <div className="flex flex-1 flex-col gap-1 px-4 py-3">
          <span className="font-display text-lg font-black tracking-tight italic">{car.name}</span>
          <span
            className={cx(
              'text-sm',
              mine ? 'font-semibold text-accent-2' : inUse ? 'text-muted' : 'font-semibold text-success',
            )}
          >
            {availability}
          </span>
          <span className="mt-auto pt-2 text-xs font-semibold text-accent group-hover:underline">
            {mine ? t('cars.resume') : t('cars.drive')} →
          </span>
        </div>
      </button>
    </li>
  );
}
