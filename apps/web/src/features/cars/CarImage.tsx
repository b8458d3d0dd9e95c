/** A car's photo, or a drawn placeholder when it has none or the photo does not load. */
import { useState } from 'react';
import { cx } from '../../lib/cx';

export function CarImage({ src, className }: { src: string | null; className?: string }) {
  const [failed, setFailed] = useState<string | null>(null);
  if (src && failed !== src) {
    return (
      <img
        src={src}
        alt=""
        loading="lazy"
        onError={() => setFailed(src)}
        className={cx('size-full object-cover', className)}
      />
    );
  }
  return (
    <div
      className={cx(
        'relative flex size-full items-center justify-center overflow-hidden bg-gradient-to-br from-surface-2 to-bg',
        className,
      )}
      aria-hidden="true"
    >
      <div className="checkered absolute inset-0 opacity-30" />
      <svg
        viewBox="0 0 64 32"
        className="relative w-1/2 max-w-40 text-muted"
        fill="currentColor"
        aria-hidden="true"
      >
        <path d="M8 20c0-3 2-5 5-6l6-6c1-1 3-2 5-2h14c2 0 4 1 5 2l6 6h4c3 0 5 2 5 5v3c0 1-1 2-2 2h-3a6 6 0 0 0-12 0H23a6 6 0 0 0-12 0h-1c-1 0-2-1-2-2Zm16-12-5 6h12V8Zm10 0v6h14l-5-5c-1-1-2-1-3-1Z" />
        <circle cx="17" cy="24" r="4" />
        <circle cx="47" cy="24" r="4" />
      </svg>
    </div>
  );
}
