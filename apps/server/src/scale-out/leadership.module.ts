/**
 * Leadership (issue 15): which instance runs the leader-only work (leadership.ts), and the way
 * followers' race commands reach it (leader-calls.ts). Built and started before the modules that
 * assign it roles (races, the chat integrations: they need it). Without REDIS_URL the one process leads, with no lock and
 * no Redis.
 */
import { defineModule } from '../module.js';
import { type LeaderCalls, RedisLeaderCalls } from './leader-calls.js';
import { AdvisoryLockLeadership, type Leadership, SoleLeadership } from './leadership.js';

declare module '../module.js' {
  interface Services {
    /** Whether this instance leads, and the roles that follow it (leadership.ts). */
    leadership: Leadership;
    /** Followers' calls to the leader over Redis; null in one process (leader-calls.ts). */
    leaderCalls: LeaderCalls | null;
  }
}

export const leadershipModule = defineModule({
  name: 'leadership',
  provides: ['leadership', 'leaderCalls'],
  services: ({ config, log }) => {
    if (config.redisUrl === null || !config.databaseUrl)
      return { leadership: new SoleLeadership(), leaderCalls: null };
    const leadershipLog = log.child({ module: 'leadership' });
    return {
      leadership: new AdvisoryLockLeadership({ databaseUrl: config.databaseUrl, log: leadershipLog }),
      leaderCalls: new RedisLeaderCalls({
        redisUrl: config.redisUrl,
        namespace: config.redisNamespace,
        log: leadershipLog,
      }),
    };
  },
  // After the migrations, before the modules after it assign their roles: the first instance up
  // leads from its first attempt.
  start: async ({ leadership }) => leadership.start(),
  // The roles follow (timers stopped, writes in flight done) before the lock is given up.
  stop: async ({ leadership, leaderCalls }) => {
    await leadership.stop();
    await leaderCalls?.close();
  },
});
