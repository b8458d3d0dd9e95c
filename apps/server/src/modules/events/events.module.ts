/** The members' event socket (/api/race-ws): the race for everyone, and what concerns each member (a session that ended, …). */
import { defineModule } from '../../module.js';
import { type EventLink, EventSockets, eventSocket } from './events.gateway.js';

declare module '../../module.js' {
  interface Services {
    /** The members' event sockets (/api/race-ws). */
    eventSockets: EventSockets;
  }
}

export const eventsModule = defineModule({
  name: 'events',
  needs: ['memberSockets'],
  uses: ['race', 'userCache'],
  provides: ['eventSockets'],
  services: ({ services }) => ({
    eventSockets: new EventSockets(services.memberSockets.kind<EventLink>('event')),
  }),
  sockets: (services, { clock, limitStores }) => [eventSocket({ ...services, clock, limitStores })],
  on: ({ eventSockets, race }) => {
    let lastStatus = 'idle';
    return {
      'car.session-ended': ({ userId, reason }) => eventSockets.tellCarSessionEnded(userId, reason),
      'race.changed': ({ state }) => {
        eventSockets.broadcast({ type: 'race_state_update', payload: state });
        // The green light: everyone's leaderboard starts (all at zero laps).
        if (state.race_status === 'active' && lastStatus !== 'active')
          eventSockets.broadcast({ type: 'live_leaderboard_update', data: race.leaderboard() });
        lastStatus = state.race_status;
      },
      'race.lap-completed': ({ leaderboard }) =>
        eventSockets.broadcast({ type: 'live_leaderboard_update', data: leaderboard }),
    };
  },
  // Before the server stops accepting: every event socket closed (1001, going away).
  stop: ({ eventSockets }) => eventSockets.closeAll(),
});
