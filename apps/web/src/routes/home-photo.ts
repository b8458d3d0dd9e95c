/**
 * The home page's photo in three widths (scripts/resize-photos.mjs writes the smaller ones), and
 * the width it is shown at, so a phone downloads ~11 KB instead of the 31 KB desktop photo. Shared
 * by the page and by main.tsx, which preloads it for `/` while the session is being restored.
 */
export const HOME_PHOTO = {
  src: '/images/home-track.webp',
  srcSet: '/images/home-track-480.webp 480w, /images/home-track-800.webp 800w, /images/home-track.webp 1200w',
  // The layout (AppLayout, Home): one column below `lg` (beside the 16rem sidebar from `md`), two
  // columns of a max-w-6xl page from `lg`; 2rem or 4rem of page padding, a 3rem column gap.
  sizes:
    '(min-width: 1536px) 552px, (min-width: 1024px) calc((100vw - 368px) / 2), (min-width: 768px) calc(100vw - 320px), calc(100vw - 32px)',
  width: 1200,
  height: 675,
} as const;

/** Starts the photo's download before the page renders (it renders once the session is restored). */
export function preloadHomePhoto(): void {
  const link = document.createElement('link');
  link.rel = 'preload';
  link.setAttribute('as', 'image');
  link.href = HOME_PHOTO.src;
  link.setAttribute('imagesrcset', HOME_PHOTO.srcSet);
  link.setAttribute('imagesizes', HOME_PHOTO.sizes);
  link.setAttribute('fetchpriority', 'high');
  document.head.append(link);
}
