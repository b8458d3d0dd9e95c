/**
 * The browser's `hello {protocolVersion}`, its first message on the control and event sockets
 * (docs/protocol.md "Browser protocol versions"; the car's handshake has the same shape): a
 * version this server does not speak is answered `incompatible {reason, supported}` and the
 * socket closes (4002), and the page asks its user to reload. A version it speaks needs no answer.
 */
import {
  BROWSER_PROTOCOL_VERSION,
  type IncompatibleMessage,
  incompatibility,
  MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION,
  SOCKET_CLOSE_CODES,
  type SupportedVersions,
} from '@telerace/protocol';
import type { SocketConnection } from './socket-connection.js';

/** The browser protocols this server speaks. */
export const BROWSER_VERSIONS: SupportedVersions = {
  min: MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION,
  max: BROWSER_PROTOCOL_VERSION,
};

export function answerBrowserHello(connection: SocketConnection, protocolVersion: number): void {
  const reason = incompatibility(protocolVersion, BROWSER_VERSIONS);
  if (reason === null) return;
  connection.options.log.info({ protocolVersion, reason }, `${connection.options.name} socket: page refused`);
  connection.send({
    type: 'incompatible',
    reason,
    supported: BROWSER_VERSIONS,
  } satisfies IncompatibleMessage);
  connection.close(SOCKET_CLOSE_CODES.incompatible, reason);
}
