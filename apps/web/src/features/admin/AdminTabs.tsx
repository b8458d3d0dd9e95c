/**
 * The admin page's tabs (WAI-ARIA tabs pattern): arrow keys, Home and End move between tabs and
 * select them; only the selected tab's panel is mounted, so only it polls the server. The
 * selected tab is kept in the URL (`?tab=users`) so a reload stays on it.
 */
import { type KeyboardEvent, type ReactNode, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { cx } from '../../lib/cx';

export interface AdminTab {
  id: string;
  label: string;
  render: () => ReactNode;
}

export function AdminTabs({ tabs, label }: { tabs: readonly AdminTab[]; label: string }) {
  const [params, setParams] = useSearchParams();
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const requested = params.get('tab');
  const selectedIndex = Math.max(
    0,
    tabs.findIndex((tab) => tab.id === requested),
  );
  const selected = tabs[selectedIndex];

  const select = (index: number, focus: boolean) => {
    const tab = tabs[index];
    if (!tab) return;
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.set('tab', tab.id);
        return next;
      },
      { replace: true },
    );
    if (focus) refs.current[index]?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const last = tabs.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: selectedIndex === last ? 0 : selectedIndex + 1,
      ArrowLeft: selectedIndex === 0 ? last : selectedIndex - 1,
      Home: 0,
      End: last,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    select(target, true);
  };

  return (
    <div className="space-y-5">
      <div
        role="tablist"
        aria-label={label}
        // Tabs wrap to a second line rather than scroll out of sight on a phone (issue 41).
        className="flex flex-wrap gap-1 rounded-xl border border-line bg-surface-2/60 p-1"
      >
        {tabs.map((tab, index) => {
          const active = index === selectedIndex;
          return (
            <button
              key={tab.id}
              ref={(element) => {
                refs.current[index] = element;
              }}
              type="button"
              role="tab"
              id={`admin-tab-${tab.id}`}
              aria-selected={active}
              aria-controls={`admin-panel-${tab.id}`}
              tabIndex={active ? 0 : -1}
              onClick={() => select(index, false)}
              onKeyDown={onKeyDown}
              className={cx(
                'shrink-0 rounded-lg px-3 py-2 text-sm font-semibold whitespace-nowrap transition-colors sm:px-4',
                'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring',
                active
                  ? 'bg-surface text-fg shadow-sm ring-1 ring-line'
                  : 'text-muted hover:bg-surface hover:text-fg',
              )}
            >
              {tab.label}
              {active && <span className="racing-stripe mt-1 block h-0.5 rounded-full" aria-hidden="true" />}
            </button>
          );
        })}
      </div>
      {selected && (
        <div
          role="tabpanel"
          id={`admin-panel-${selected.id}`}
          aria-labelledby={`admin-tab-${selected.id}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the tabs pattern makes the panel reachable with Tab when it holds no control.
          tabIndex={0}
          className="rounded-xl focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-ring"
        >
          {selected.render()}
        </div>
      )}
    </div>
  );
}
