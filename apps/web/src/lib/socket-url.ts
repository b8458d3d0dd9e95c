/** WebSocket addresses on the page's own host: wss on https, ws otherwise. */
export function socketUrl(
  path: string,
  params: Record<string, string>,
  location: Pick<Location, 'protocol' | 'host'> = window.location,
): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = new URLSearchParams(params).toString();
  return `${scheme}//${location.host}${path}${query ? `?${query}` : ''}`;
}

/** The part of the browser's WebSocket both socket clients use; tests inject a fake one. */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type SocketFactory = (url: string) => SocketLike;

export const browserSocket: SocketFactory = (url) => new WebSocket(url);

/** WebSocket.OPEN, without needing the global in tests. */
export const SOCKET_OPEN = 1;
