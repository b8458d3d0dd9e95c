/**
 * The Car Status tab's "Speed & trim" dialog: an admin changes any car's speed limits and steering
 * trim, whoever drives it and whether it is online (the server sends them to the car at once, or in
 * its next welcome). It shows the car's current values and stays open after a save, so the admin can
 * adjust again while the driver tries them.
 */
import type { AdminCar } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { Modal } from '../../components/ui/Modal';
import { CarConfigSliders, useCarConfigEditor } from '../cars/CarConfigSliders';

export function CarConfigDialog({
  car,
  onClose,
}: {
  /** The car as last listed (refreshed every 5 s); the dialog is closed when it is gone. */
  car: AdminCar | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { config, change, save, busy, result } = useCarConfigEditor(car);
  if (!car || !config) return null;
  return (
    <Modal
      open
      onClose={onClose}
      size="sm"
      title={t('carStatus.config.title', { name: car.name })}
      description={t('carStatus.config.text')}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t(result?.tone === 'success' ? 'carStatus.done' : 'carStatus.cancel')}
          </Button>
          <Button busy={busy} onClick={() => void save()}>
            {t('control.settings.save')}
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <CarConfigSliders config={config} onChange={change} />
        {result && <Alert tone={result.tone}>{result.text}</Alert>}
      </div>
    </Modal>
  );
}
