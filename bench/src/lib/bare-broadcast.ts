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

/**
 * The two-instance fan-out baseline (issue 15): the same bare `ws` broadcast, but what it sends to
 * its sockets arrives over Redis pub/sub (BARE_REDIS_URL, channel BARE_REDIS_CHANNEL) instead of a
 * trigger socket. Two of these, each holding its share of the sockets, are the least two processes
 * can do to broadcast one message that crossed Redis once, as a fact from the leader does on its way
 * to a follower. The port opens only once the channel is subscribed: the bench never publishes to a
 * process that cannot hear it yet.
 */
export const BARE_REDIS_BROADCAST_SCRIPT = `
import { Redis } from 'ioredis';
import { WebSocketServer } from 'ws';
const listeners = new Set();
const subscriber = new Redis(process.env.BARE_REDIS_URL);
subscriber.on('message', (_channel, text) => {
  for (const listener of listeners) listener.send(text);
});
await subscriber.subscribe(process.env.BARE_REDIS_CHANNEL);
const wss = new WebSocketServer({ port: Number(process.env.PORT), host: '127.0.0.1', perMessageDeflate: false });
wss.on('connection', (socket) => {
  listeners.add(socket);
  socket.on('close', () => listeners.delete(socket));
});
`;
