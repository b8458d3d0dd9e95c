/**
 * Where the live video goes (16:9). Until the video update it shows a clear placeholder; the
 * overlays (telemetry now; race overlays later) already sit where they will stay.
 */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function VideoPlaceholder({
  streamId,
  topLeft,
  bottom,
}: {
  streamId: string;
  topLeft?: ReactNode;
  bottom?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <div
      className="relative aspect-video w-full overflow-hidden rounded-2xl border border-line bg-[#07080b] text-white shadow-lg"
      data-testid="video-area"
      data-stream-id={streamId}
    >
      <div
        className="absolute inset-0 opacity-[0.07] [background-image:repeating-linear-gradient(0deg,#fff_0_1px,transparent_1px_4px)]"
        aria-hidden="true"
      />
      <div className="absolute inset-0 flex flex-col items-center justify-center gap-3 px-6 text-center">
        <svg
          viewBox="0 0 24 24"
          className="hidden size-14 text-white/50 sm:block"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
          aria-hidden="true"
        >
          <rect x="2.5" y="6" width="13" height="12" rx="2" />
          <path strokeLinejoin="round" d="m15.5 10.5 6-3.5v10l-6-3.5z" />
        </svg>
        <p className="mt-6 font-display text-sm font-black italic sm:mt-0 sm:text-xl">
          {t('control.video.placeholder')}
        </p>
        <p className="hidden max-w-md text-sm text-white/60 sm:block">{t('control.video.hint')}</p>
      </div>
      {topLeft && <div className="absolute top-2 left-2 sm:top-3 sm:left-3">{topLeft}</div>}
      {bottom && <div className="absolute inset-x-2 bottom-2 sm:inset-x-3 sm:bottom-3">{bottom}</div>}
    </div>
  );
}
