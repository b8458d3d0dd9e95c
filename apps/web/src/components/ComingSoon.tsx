import { useTranslation } from 'react-i18next';
import { LinkButton } from './ui/LinkButton';
import { Panel } from './ui/Panel';

/** Placeholder of a screen that is routed and guarded but not built yet. */
export function ComingSoon({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-2xl">
      <Panel level={1} eyebrow={t('comingSoon.eyebrow')} title={title}>
        <div className="relative">
          <div
            className="checkered pointer-events-none absolute -top-16 right-0 h-24 w-40 opacity-60 [mask-image:linear-gradient(to_left,black,transparent)]"
            aria-hidden="true"
          />
          <p className="relative text-muted">{t('comingSoon.text')}</p>
          <LinkButton to="/" variant="secondary" className="relative mt-6">
            {t('common.backHome')}
          </LinkButton>
        </div>
      </Panel>
    </div>
  );
}
