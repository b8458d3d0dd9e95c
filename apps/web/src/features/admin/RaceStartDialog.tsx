/**
 * Race Control's confirmation before Start race (issue 41 point 9): how many of the lobby's pilots
 * are ready (a warning when not all are: the race starts for everyone in the lobby, ready or not),
 * what starts (the countdown, then the race's length, from the race settings), and the cars whose
 * laps the lap counter in use cannot count (issue 40).
 */
import { useQuery } from '@tanstack/react-query';
import type { UncountedCar } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import { ADMIN_SETTINGS_KEY, fetchSettings } from '../cars/admin-cars-api';

export interface RaceStartDialogProps {
  open: boolean;
  onClose: () => void;
  onStart: () => void;
  busy: boolean;
  ready: number;
  total: number;
  uncounted: readonly UncountedCar[];
}

/** The sentence saying how many pilots are ready, and whether it is a warning. */
function readiness(ready: number, total: number) {
  if (ready >= total) return { key: 'raceControl.startConfirm.allReady', count: total, warn: false } as const;
  if (ready === 0) return { key: 'raceControl.startConfirm.noneReady', count: total, warn: true } as const;
  return { key: 'raceControl.startConfirm.someReady', count: ready, warn: true } as const;
}

export function RaceStartDialog({
  open,
  onClose,
  onStart,
  busy,
  ready,
  total,
  uncounted,
}: RaceStartDialogProps) {
  const { t } = useTranslation();
  // The race settings the Race Control tab already reads; the times are left out until they load.
  const settings = useQuery({ queryKey: ADMIN_SETTINGS_KEY, queryFn: fetchSettings, enabled: open });
  const line = readiness(ready, total);
  const anyway = line.warn || uncounted.length > 0;
  const readyText = t(line.key, { count: line.count, total });
  return (
    <Modal
      open={open}
      onClose={onClose}
      size="sm"
      title={t(anyway ? 'raceControl.startConfirm.titleAnyway' : 'raceControl.startConfirm.title')}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('raceControl.cancel')}
          </Button>
          <Button busy={busy} onClick={onStart} data-testid="race-start-confirm">
            {t(anyway ? 'raceControl.startAnyway' : 'raceControl.start')}
          </Button>
        </>
      }
    >
      <div className="space-y-3 text-sm" data-testid="race-start-summary">
        {line.warn ? <Alert tone="warning">{readyText}</Alert> : <p className="font-semibold">{readyText}</p>}
        <p>
          {t('raceControl.startConfirm.everyone')}
          {settings.data &&
            ` ${t('raceControl.startConfirm.times', {
              countdown: settings.data.race_countdown_seconds,
              length: settings.data.race_length_minutes,
            })}`}
        </p>
        {uncounted.length > 0 && (
          <div>
            <p>{t('raceControl.startUncountedText')}</p>
            <ul className="mt-1 list-disc space-y-0.5 pl-5 break-words">
              {uncounted.map((car) => (
                <li key={car.carId}>{car.carName}</li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </Modal>
  );
}
