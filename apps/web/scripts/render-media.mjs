/**
 * Renders the public media from the scenes in scripts/media/ with Debian's Chromium and ffmpeg/cwebp:
 * the Home and About photos, the promo video and its poster. Run from the repo root:
 * `node apps/web/scripts/render-media.mjs` (needs /usr/bin/chromium, ffmpeg and cwebp).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';

const here = import.meta.dirname;
const web = join(here, '..');
const scenes = join(here, 'media');
const FPS = 25;
const SECONDS = 12;
const POSTER_AT = 2.2;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const work = mkdtempSync(join(tmpdir(), 'telerace-media-'));
try {
  mkdirSync(join(web, 'public/images'), { recursive: true });
  mkdirSync(join(web, 'public/media'), { recursive: true });

  const photos = await browser.newPage({ viewport: { width: 1200, height: 675 } });
  for (const [scene, out] of [
    ['home-photo.html', 'public/images/home-track.webp'],
    ['about-photo.html', 'public/images/about-track.webp'],
  ]) {
    await photos.goto(pathToFileURL(join(scenes, scene)).href);
    const png = join(work, `${scene}.png`);
    await photos.screenshot({ path: png });
    execFileSync('cwebp', ['-quiet', '-q', '80', png, '-o', join(web, out)]);
  }

  const video = await browser.newPage({ viewport: { width: 854, height: 480 } });
  await video.goto(pathToFileURL(join(scenes, 'promo.html')).href);
  for (let i = 0; i < FPS * SECONDS; i += 1) {
    await video.evaluate((t) => window.render(t), i / FPS);
    await video.screenshot({ path: join(work, `f${String(i).padStart(4, '0')}.png`) });
  }
  await video.evaluate((t) => window.render(t), POSTER_AT);
  const poster = join(work, 'poster.png');
  await video.screenshot({ path: poster });
  execFileSync('cwebp', ['-quiet', '-q', '80', poster, '-o', join(web, 'public/media/promo-poster.webp')]);
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-framerate',
    String(FPS),
    '-i',
    join(work, 'f%04d.png'),
    '-c:v',
    'libvpx-vp9',
    '-b:v',
    '0',
    '-crf',
    '36',
    '-row-mt',
    '1',
    '-deadline',
    'good',
    '-cpu-used',
    '2',
    '-pix_fmt',
    'yuv420p',
    '-an',
    join(web, 'public/media/promo.webm'),
  ]);
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
