/**
 * Writes the smaller widths of the home page photo (public/images/home-track-<width>.webp) for its
 * `srcset`, so a phone downloads a photo of its own size. Debian's Chromium scales and encodes them
 * (canvas, WebP), so no image tool is needed. Run from the repo root after render-media.mjs:
 * `node apps/web/scripts/resize-photos.mjs`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';

const images = join(import.meta.dirname, '..', 'public/images');
/** Keep in step with HOME_PHOTO in src/routes/home-photo.ts. */
const WIDTHS = [480, 800];
const QUALITY = 0.8;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  const source = `data:image/webp;base64,${readFileSync(join(images, 'home-track.webp')).toString('base64')}`;
  for (const width of WIDTHS) {
    const dataUrl = await page.evaluate(
      async ({ source, width, quality }) => {
        const image = new Image();
        image.src = source;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = width;
        canvas.height = Math.round((image.naturalHeight * width) / image.naturalWidth);
        const context = canvas.getContext('2d');
        context.imageSmoothingQuality = 'high';
        context.drawImage(image, 0, 0, canvas.width, canvas.height);
        return canvas.toDataURL('image/webp', quality);
      },
      { source, width, quality: QUALITY },
    );
    const out = join(images, `home-track-${width}.webp`);
    writeFileSync(out, Buffer.from(dataUrl.split(',')[1], 'base64'));
    console.info(`written: ${out}`);
  }
} finally {
  await browser.close();
}
