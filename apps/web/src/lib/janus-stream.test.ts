import { describe, expect, it } from 'vitest';
import { reportingEarlyClose } from './janus-stream';

/** The browser's WebSocket as far as the events go. */
class BaseSocket extends EventTarget {
  constructor(
    readonly url: string | URL,
    readonly protocols?: string | string[],
  ) {
    super();
  }
}

function openSocket() {
  const Socket = reportingEarlyClose(BaseSocket as unknown as typeof WebSocket);
  const socket = new Socket('ws://localhost/janus?token=t', 'janus-protocol');
  const errors: Event[] = [];
  socket.addEventListener('error', (event) => errors.push(event));
  return { socket, errors };
}

describe('reportingEarlyClose (the socket given to janus.js)', () => {
  it('keeps the address and subprotocol', () => {
    const { socket } = openSocket();
    expect(socket.url).toBe('ws://localhost/janus?token=t');
    expect((socket as unknown as BaseSocket).protocols).toBe('janus-protocol');
  });

  it('reports a close before Janus said anything as a connection error', () => {
    const { socket, errors } = openSocket();
    socket.dispatchEvent(new Event('open'));
    socket.dispatchEvent(new Event('close'));
    expect(errors).toHaveLength(1);
  });

  it('leaves a close after Janus answered to janus.js', () => {
    const { socket, errors } = openSocket();
    socket.dispatchEvent(new MessageEvent('message', { data: '{"janus":"success"}' }));
    socket.dispatchEvent(new Event('close'));
    expect(errors).toHaveLength(0);
  });

  it('does not report a refused connection twice', () => {
    const { socket, errors } = openSocket();
    socket.dispatchEvent(new Event('error'));
    socket.dispatchEvent(new Event('close'));
    expect(errors).toHaveLength(1);
  });
});
