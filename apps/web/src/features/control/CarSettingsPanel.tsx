/**
 * The admin's car settings on the control page (spec §2): a collapsible panel with the car's speed
 * and trim sliders, starting from its saved values; Save posts them.
 */
import type { Car } from '@telerace/protocol';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../components/ui/Alert';
import { Button } from '../../components/ui/Button';
import { LineIcon } from '../../components/ui/Icon';
import { cx } from '../../lib/cx';
import { CarConfigSliders, useCarConfigEditor } from '../cars/CarConfigSliders';

export function CarSettingsPanel({ car }: { car: Car | undefined }) {
  const { t } = useTranslation();
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const { config, change, save, busy, result } = useCarConfigEditor(car);

  return (
    <section
      className="overflow-hidden rounded-2xl border border-line bg-surface"
      aria-label={t('control.settings.title')}
    >
      <h2>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen((value) => !value)}
          className="flex w-full items-center justify-between gap-3 px-4 py-3 text-left font-display font-black italic hover:bg-surface-2 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring"
        >
          <span className="flex items-center gap-2">
            <span className="rounded bg-accent-2/15 px-1.5 py-0.5 text-[0.65rem] font-bold tracking-wider text-accent-2 uppercase not-italic">
              {t('control.settings.adminBadge')}
            </span>
            {t('control.settings.title')}
          </span>
          <LineIcon className={cx('transition-transform', open && 'rotate-180')}>
            <path strokeLinecap="round" strokeLinejoin="round" d="m6 9 6 6 6-6" />
          </LineIcon>
        </button>
      </h2>
      <div id={panelId} hidden={!open} className="space-y-4 border-t border-line px-4 py-4">
        {!config ? (
          <p className="text-sm text-muted">{t('control.settings.loading')}</p>
        ) : (
          <>
            <CarConfigSliders config={config} onChange={change} />
            <Button onClick={() => void save()} busy={busy} className="w-full">
              {t('control.settings.save')}
            </Button>
            {result && <Alert tone={result.tone}>{result.text}</Alert>}
          </>
        )}
      </div>
    </section>
  );
}
