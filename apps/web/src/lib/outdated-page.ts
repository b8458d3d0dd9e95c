/**
 * The browser protocol handshake (docs/protocol.md "Browser protocol versions"): the control and
 * event sockets say `hello {protocolVersion}` as soon as they open, and a server that does not
 * speak that version answers `incompatible {reason}` and closes (4002). Retrying cannot help;
 * reloading can (the server serves the page that speaks its protocol), so the socket stops and
 * `outdatedPage` holds the reason the layout's banner shows until the user reloads.
 */
import { BROWSER_PROTOCOL_VERSION, type BrowserHello, type IncompatibleReason } from '@telerace/protocol';
import { StateStore } from './state-store';

/** The first message of every browser socket. */
export const HELLO: BrowserHello = { type: 'hello', protocolVersion: BROWSER_PROTOCOL_VERSION };

export interface OutdatedPageState {
  /** Why the server refused this page's protocol; null while it has not. */
  reason: IncompatibleReason | null;
}

export class OutdatedPage extends StateStore<OutdatedPageState> {
  constructor() {
    super({ reason: null });
  }

  /** A socket's server refused this page's protocol (the first reason stays). */
  refused(reason: IncompatibleReason): void {
    if (this.state.reason === null) this.update({ reason });
  }
}

/** The app's one: both sockets report to it, the layout's banner reads it. */
export const outdatedPage = new OutdatedPage();
