/**
 * What a page the server rendered hands to the browser that hydrates it (issue 45): the language
 * it was drawn in, the server's time at that moment, the answers it was drawn from (TanStack
 * Query's dehydrated cache: the browser does not fetch them again) and the router's loader data.
 * Sent as JSON in a `<script type="application/json">` (escaped by the server: page-render.ts) —
 * data, never run, so the page's CSP needs no inline script.
 */
import type { DehydratedState } from '@tanstack/react-query';
import type { Language } from '@telerace/protocol';
import type { HydrationState } from 'react-router';

export const PAGE_STATE_ELEMENT_ID = 'telerace-page-state';

export interface PageState {
  language: Language;
  /** The server's clock when it drew the page (ms since the epoch): countdowns hydrate at it. */
  renderedAt: number;
  queries: DehydratedState;
  router: HydrationState;
}

/** The state of the page being opened, or null when the browser draws it (no server render). */
export function readPageState(): PageState | null {
  const element = document.getElementById(PAGE_STATE_ELEMENT_ID);
  if (!element?.textContent) return null;
  try {
    return JSON.parse(element.textContent) as PageState;
  } catch {
    return null;
  }
}
