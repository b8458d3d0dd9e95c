/**
 * The fan-out baseline: a bare `ws` server, alone in its process, that sends every text it gets on
 * `/trigger` to all its other sockets — the least a server can do to broadcast one message, with
 * the same library the real server uses. The text is turned into a string once and that string is
 * sent to each socket, as a broadcast of one serialized payload would.
 */
export const BARE_BROADCAST_SCRIPT = `
import { WebSocketServer } from 'ws';
const listeners = new Set();
const wss = new WebSocketServer({ port: Number(process.env.PORT), host: '127.0.0.1', perMessageDeflate: false });
wss.on('connection', (socket, request) => {
  if (request.url.startsWith('/trigger')) {
    socket.on('message', (data) => {
      const text = data.toString();
      for (const listener of listeners) listener.send(text);
    });
    return;
  }
  listeners.add(socket);
  socket.on('close', () => listeners.delete(socket));
});
`;
