import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { MIN_BYTES, precompressFolder } from './precompress';

const SCRIPT = `console.log(${JSON.stringify('telerace '.repeat(400))});\n`;

describe('precompressed build files', () => {
  let dir = '';
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes a brotli and a gzip copy beside each text file, decoding to the same bytes', async () => {
    dir = await mkdtemp(join(tmpdir(), 'telerace-precompress-'));
    await writeFile(join(dir, 'index.html'), `<!doctype html>${'<p>telerace</p>'.repeat(100)}`);
    const assets = join(dir, 'assets');
    await mkdir(assets);
    await writeFile(join(assets, 'app-1a2b.js'), SCRIPT);

    expect(await precompressFolder(dir)).toMatchObject({ files: 2 });
    const script = join(assets, 'app-1a2b.js');
    expect(brotliDecompressSync(await readFile(`${script}.br`)).toString()).toBe(SCRIPT);
    expect(gunzipSync(await readFile(`${script}.gz`)).toString()).toBe(SCRIPT);
    expect((await readFile(`${script}.br`)).length).toBeLessThan(SCRIPT.length / 10);
    expect((await readdir(dir)).sort()).toEqual(['assets', 'index.html', 'index.html.br', 'index.html.gz']);
  });

  it('leaves small files, and images or video, as they are', async () => {
    dir = await mkdtemp(join(tmpdir(), 'telerace-precompress-'));
    await writeFile(join(dir, 'theme-init.js'), 'x'.repeat(MIN_BYTES - 1));
    await writeFile(join(dir, 'poster.webp'), Buffer.alloc(50_000));
    await writeFile(join(dir, 'promo.webm'), Buffer.alloc(50_000));

    expect(await precompressFolder(dir)).toMatchObject({ files: 0 });
    expect((await readdir(dir)).sort()).toEqual(['poster.webp', 'promo.webm', 'theme-init.js']);
  });
});
