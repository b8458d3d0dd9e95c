/** The members' event socket (/api/race-ws): the race for everyone, and what concerns each member (a session that ended, …). */
import { defineModule } from '../../module.js';
import { type RaceFeedLink, RaceFeedSockets, raceFeedSocket } from './race-feed.socket.js';

declare module '../../module.js' {
  interface Services {
    /** The members' event sockets (/api/race-ws). */
    raceFeedSockets: RaceFeedSockets;
  }
}

export const raceFeedModule = defineModule({
  name: 'race-feed',
  needs: ['memberSockets'],
  uses: ['race', 'userCache'],
  provides: ['raceFeedSockets'],
  services: ({ services }) => ({
    raceFeedSockets: new RaceFeedSockets(services.memberSockets.kind<RaceFeedLink>('event')),
  }),
  sockets: (services, { clock, limitStores }) => [raceFeedSocket({ ...services, clock, limitStores })],
  on: ({ raceFeedSockets, race }) => {
    let lastStatus = 'idle';
    return {
      'car.session-ended': ({ userId, reason }) => raceFeedSockets.tellCarSessionEnded(userId, reason),
      'race.changed': ({ state }) => {
        raceFeedSockets.broadcast({ type: 'race_state_update', payload: state });
        // The green light: everyone's leaderboard starts (all at zero laps).
        if (state.race_status === 'active' && lastStatus !== 'active')
          raceFeedSockets.broadcast({ type: 'live_leaderboard_update', data: race.leaderboard() });
        lastStatus = state.race_status;
      },
      'race.lap-completed': ({ leaderboard }) =>
        raceFeedSockets.broadcast({ type: 'live_leaderboard_update', data: leaderboard }),
    };
  },
  // Before the server stops accepting: every event socket closed (1001, going away).
  stop: ({ raceFeedSockets }) => raceFeedSockets.closeAll(),
});
