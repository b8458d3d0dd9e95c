/** What the page renderer's thread (page-render-worker.ts) and the server (page-render.ts) tell each other. */
import type { Language } from '@telerace/protocol';

/** A page as the web build's renderer draws it (apps/web/src/entry-server.tsx). */
export interface DrawnPage {
  language: Language;
  title: string;
  html: string;
  state: unknown;
}

/** What the web build's renderer exports. */
export interface RendererModule {
  setApiTransport(send: (url: string, init: RequestInit) => Promise<Response>): void;
  renderPage(url: string, language: Language, now: number): Promise<DrawnPage | null>;
}

/** The API's answer to one of the renderer's reads. */
export interface PageAnswer {
  status: number;
  contentType: string;
  body: Uint8Array;
}

export type ToRenderer =
  | { kind: 'render'; id: number; href: string; url: string; language: Language; now: number }
  | { kind: 'answer'; id: number; answer: PageAnswer };

export type FromRenderer =
  | { kind: 'rendered'; id: number; page: DrawnPage | null }
  | { kind: 'failed'; id: number; error: string }
  | { kind: 'ask'; id: number; url: string };
