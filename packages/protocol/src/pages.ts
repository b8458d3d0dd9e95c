/**
 * The pages the server draws (issue 45): the public pages a stream's viewers open, drawn for a
 * signed-out visitor by the web build's renderer (apps/web/src/entry-server.tsx), which the server
 * asks for these paths only (apps/server/src/http/page-render.ts). Every other page (the member's,
 * the admin's, the sign-in steps) and any page of a visitor with a session is drawn by the browser.
 */
const SERVER_RENDERED: readonly RegExp[] = [
  /^\/$/,
  /^\/leaderboards$/,
  /^\/raffles\/\d{1,10}$/,
  /^\/races\/\d{1,10}$/,
  /^\/claim$/,
  /^\/login$/,
  /^\/signup$/,
  /^\/forgot-password$/,
  /^\/faq$/,
  /^\/about$/,
  /^\/privacy-policy$/,
  /^\/terms-of-service$/,
];

export function isServerRenderedPath(pathname: string): boolean {
  return SERVER_RENDERED.some((page) => page.test(pathname));
}
