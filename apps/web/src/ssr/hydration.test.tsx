/**
 * What the browser draws first matches what the server drew (issue 45): the hooks that read the
 * browser give the server's value while a page is drawn and while it is hydrated — also in a part
 * React hydrates later (a Suspense boundary) — and the browser's own once live.
 */
import { act, Suspense, use } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useHydrated, useTimeZoneOptions } from '../lib/use-hydrated';
import { drawnAt, RenderTime, useNow } from '../lib/use-now';

const DRAWN_AT = Date.UTC(2026, 11, 8, 9, 30, 0);

function Clock() {
  const now = useNow();
  const inTimeZone = useTimeZoneOptions();
  const live = useHydrated();
  return (
    <p>
      <span data-testid="now">{now}</span>
      <span data-testid="time">
        {new Date(now).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', ...inTimeZone })}
      </span>
      <span data-testid="live">{String(live)}</span>
    </p>
  );
}

/** A part of the page React hydrates only once `arrived` resolves (a page's code still loading). */
function Later({ arrived }: { arrived: Promise<void> }) {
  use(arrived);
  return <Clock />;
}

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = '';
});

describe('hydrating a page the server drew', () => {
  it('draws the clocks at the server’s time in UTC, hydrates them unchanged, then shows the browser’s', async () => {
    const html = renderToString(
      <RenderTime value={DRAWN_AT}>
        <Clock />
      </RenderTime>,
    );
    expect(html).toContain(String(DRAWN_AT));
    expect(html).toContain('09:30 UTC');
    expect(html).toContain('>false<');

    // The browser opens the page 5 s later.
    vi.useFakeTimers({ now: DRAWN_AT + 5_000 });
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    drawnAt(DRAWN_AT);
    const errors: unknown[] = [];
    await act(async () => {
      hydrateRoot(container, <Clock />, { onRecoverableError: (error) => errors.push(error) });
    });
    expect(errors).toEqual([]);
    // Live: the browser's time, in the browser's zone (no "UTC" any more).
    expect(container.querySelector('[data-testid="now"]')?.textContent).toBe(String(DRAWN_AT + 5_000));
    expect(container.querySelector('[data-testid="time"]')?.textContent).not.toContain('UTC');
    expect(container.querySelector('[data-testid="live"]')?.textContent).toBe('true');
  });

  it('hydrates a part React reaches late at the server’s time too', async () => {
    const html = renderToString(
      <RenderTime value={DRAWN_AT}>
        <Suspense fallback={<p>loading</p>}>
          <Later arrived={Promise.resolve()} />
        </Suspense>
      </RenderTime>,
    );
    // renderToString cannot wait: draw the boundary's content as the server's prerender would.
    const drawn = renderToString(
      <RenderTime value={DRAWN_AT}>
        <Suspense fallback={<p>loading</p>}>
          <Clock />
        </Suspense>
      </RenderTime>,
    );
    expect(html).toContain('loading');
    vi.useFakeTimers({ now: DRAWN_AT + 65_000 });
    const container = document.createElement('div');
    container.innerHTML = drawn;
    document.body.append(container);
    drawnAt(DRAWN_AT);
    let arrive = () => {};
    const arrived = new Promise<void>((resolve) => {
      arrive = resolve;
    });
    const errors: unknown[] = [];
    await act(async () => {
      hydrateRoot(
        container,
        <Suspense fallback={<p>loading</p>}>
          <Later arrived={arrived} />
        </Suspense>,
        { onRecoverableError: (error) => errors.push(error) },
      );
    });
    // The server's HTML stays while the part's code is away, then hydrates without a mismatch.
    expect(container.querySelector('[data-testid="now"]')?.textContent).toBe(String(DRAWN_AT));
    await act(async () => {
      arrive();
      await arrived;
    });
    expect(errors).toEqual([]);
    expect(container.querySelector('[data-testid="now"]')?.textContent).toBe(String(DRAWN_AT + 65_000));
  });
});
