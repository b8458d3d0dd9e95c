/** The members' event socket (/api/race-ws): pushes what concerns them (a session that ended, …). */
import { defineModule } from '../../module.js';
import { EventSockets, eventRoutes } from './events.gateway.js';

declare module '../../module.js' {
  interface Services {
    /** The members' event sockets (/api/race-ws). */
    eventSockets: EventSockets;
  }
}

export const eventsModule = defineModule({
  name: 'events',
  services: () => ({ eventSockets: new EventSockets() }),
  sockets: () => [{ plugin: eventRoutes }],
  on: ({ eventSockets }) => ({
    'user.sessions-revoked': ({ userId, reason }) => eventSockets.disconnectUser(userId, reason),
    'session.revoked': ({ userId, sessionId }) => eventSockets.closeSession(userId, sessionId),
    'car.session-ended': ({ userId, reason }) =>
      eventSockets.sendToUser(userId, { type: 'force_disconnect', reason }),
  }),
});
