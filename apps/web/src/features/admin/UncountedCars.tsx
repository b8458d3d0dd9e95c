/**
 * Race Control's warning (issue 40 §13): the participants' cars whose laps the lap counter in use
 * cannot count, each with why and what to do (docs/races.md "Which lap counter"), so the admin
 * knows before pressing Start race. Nothing when every car can be counted.
 */
import type { LapCounterKind, UncountedCar } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import type { TranslationKey } from '../../i18n';

/** The translation key of why `car` is not counted by the `kind` lap counter. */
function reasonKey(kind: LapCounterKind, car: UncountedCar): TranslationKey {
  if (car.reason === 'no_passes') return 'raceControl.uncounted.noPasses';
  return kind === 'rotorhazard'
    ? 'raceControl.uncounted.noLapCounterId.rotorhazard'
    : 'raceControl.uncounted.noLapCounterId.zround';
}

export function UncountedCars({ kind, cars }: { kind: LapCounterKind; cars: readonly UncountedCar[] }) {
  const { t } = useTranslation();
  if (cars.length === 0) return null;
  return (
    <Alert tone="warning" title={t('raceControl.uncounted.title', { count: cars.length })}>
      <ul className="list-disc space-y-1 pl-4 break-words" data-testid="uncounted-cars">
        {cars.map((car) => (
          <li key={car.carId}>{t(reasonKey(kind, car), { car: car.carName, kind })}</li>
        ))}
      </ul>
    </Alert>
  );
}
