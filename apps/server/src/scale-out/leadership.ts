/**
 * Leadership (issue 15, docs/decisions.md "Scale-out"): the work that must run on exactly one
 * instance — the race engine's timers and lap counting, the chat integrations' connections, the
 * domain-event handlers placed on the leader (events.ts) — runs on the holder of a PostgreSQL
 * session-level advisory lock, taken on a dedicated connection (not one of the pool's, which come
 * and go).
 *
 * Followers wait for the lock in PostgreSQL's own queue (`pg_advisory_lock`) instead of asking at
 * intervals: PostgreSQL hands it to a waiter the moment the holder's connection ends, so a
 * SIGKILLed leader is replaced as fast as the new one resumes its work (issue 39: a try every
 * second let a race wait up to a second more). There is no lease to renew, so nothing expires
 * while an event loop stalls: the lock lives as long as its connection. What a stall could fool
 * is the leader's check of that connection (`SELECT 1` every second): it fails only when still
 * unanswered 5 s later, judged once the loop has caught up (settles-within.ts). A connection that
 * dies silently (a network or a host gone, no FIN) is dropped by PostgreSQL within 11 s (its own
 * TCP keepalives, set for this session), and its lock with it; the old leader's check has given
 * up by then (≤ 6 s), so it stops first. A follower's wait is answered every 10 s
 * (`lock_timeout`), which proves its connection alive; then it queues again.
 *
 * A module hands its leader-only work over as a role (`assign`): `lead` when this instance becomes
 * the leader (start as at start-up: resume from the database), `follow` when it stops being one
 * (stop the timers now: never two engines). Without REDIS_URL the one process is always the
 * leader (`SoleLeadership`): its roles lead from the start, exactly as before.
 */
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { settlesWithin } from './settles-within.js';

/** Leader-only work of one module. */
export interface LeaderRole {
  name: string;
  /** This instance became the leader: start the work (resume it from the database). */
  lead(): Promise<void> | void;
  /** This instance is no longer the leader: stop the work at once. */
  follow(): Promise<void> | void;
}

export interface Leadership {
  /** Whether this instance holds the leadership now. */
  readonly leading: boolean;
  /**
   * Hands a role over: it leads now if this instance is the leader, else it follows now (a
   * follower's role starts from what the leader runs: the race engine loads its copy of the race),
   * resolved once that step is done; it follows the leadership from then on.
   */
  assign(role: LeaderRole): Promise<void>;
  /** Starts campaigning (one first attempt, awaited, so the first instance up leads at once). */
  start(): Promise<void>;
  /** Roles follow, then the leadership is given up (another instance takes it at its next try). */
  stop(): Promise<void>;
}

/** One process: always the leader, no lock. */
export class SoleLeadership implements Leadership {
  readonly leading = true;

  async assign(role: LeaderRole): Promise<void> {
    await role.lead();
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}
}

/** Runs each role's transitions one after the other, so a lead never overlaps a follow. */
class RoleRunner {
  #chain: Promise<void> = Promise.resolve();

  constructor(
    readonly role: LeaderRole,
    private readonly log: FastifyBaseLogger,
  ) {}

  transition(leading: boolean): Promise<void> {
    const step = async () => {
      try {
        await (leading ? this.role.lead() : this.role.follow());
      } catch (error) {
        this.log.error({ err: error, role: this.role.name, leading }, 'a leader role failed to change');
      }
    };
    this.#chain = this.#chain.then(step);
    return this.#chain;
  }
}

/** The advisory lock's two keys (`pg_try_advisory_lock(int, int)`): "Telerace", the leader. */
export const LEADER_LOCK = { classId: 0x54454c45, objectId: 1 } as const;

/** The periods of the lock's connection (see the header for why each is what it is). */
export interface LeadershipTiming {
  /** How often the leader checks its connection; how long a follower waits before connecting again. */
  checkMs: number;
  /** How long a check may go unanswered (judged once the event loop has caught up). */
  checkTimeoutMs: number;
  /** How long a follower waits in the lock queue before PostgreSQL answers and it queues again. */
  waitMs: number;
}

export const LEADERSHIP_TIMING: LeadershipTiming = { checkMs: 1_000, checkTimeoutMs: 5_000, waitMs: 10_000 };

/**
 * PostgreSQL's side of a silent death (seconds): probes after 5 s of silence, every 2 s, 3 unanswered
 * drop the connection — 11 s, longer than the leader's own check gives itself (1 + 5 s).
 */
const SERVER_KEEPALIVE = { idle: 5, interval: 2, count: 3 } as const;

/** SQLSTATE of a wait that reached `lock_timeout`: the connection is alive, the lock still taken. */
const LOCK_NOT_AVAILABLE = '55P03';

export interface AdvisoryLockLeadershipOptions {
  /** The PostgreSQL to lock in (DATABASE_URL): locks are per database. */
  databaseUrl: string;
  log: FastifyBaseLogger;
  timing?: Partial<LeadershipTiming>;
  lock?: { classId: number; objectId: number };
}

/** What one attempt at the lock came to. */
type Attempt = 'leading' | 'taken' | 'failed';

/**
 * The leader is whoever holds the advisory lock. A leader checks its connection at each interval:
 * a connection that fails or stops answering means the lock may be someone else's already, so
 * the roles follow at once and the campaign starts over on a new connection.
 */
export class AdvisoryLockLeadership implements Leadership {
  readonly #options: Required<Omit<AdvisoryLockLeadershipOptions, 'timing'>>;
  readonly #timing: LeadershipTiming;
  readonly #runners: RoleRunner[] = [];
  #client: pg.Client | null = null;
  #leading = false;
  #stopped = true;
  #loop: Promise<void> = Promise.resolve();
  /** Ends the pause between two attempts early (stop). */
  #wake: (() => void) | undefined;

  constructor(options: AdvisoryLockLeadershipOptions) {
    this.#options = { lock: LEADER_LOCK, ...options };
    this.#timing = { ...LEADERSHIP_TIMING, ...options.timing };
  }

  get leading(): boolean {
    return this.#leading;
  }

  async assign(role: LeaderRole): Promise<void> {
    const runner = new RoleRunner(role, this.#options.log);
    this.#runners.push(runner);
    // A follower's role too: an instance started during a race (a rolling upgrade) showed no race
    // until the leader's next state change, its copy never loaded.
    await runner.transition(this.#leading);
  }

  /** One immediate try (the first instance up leads before it answers), then the campaign runs on. */
  async start(): Promise<void> {
    this.#stopped = false;
    const first = await this.#attempt('SELECT pg_try_advisory_lock($1, $2) AS locked');
    this.#loop = this.#run(first);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    // A follower waiting in the lock queue: closing its connection ends the wait.
    if (!this.#leading) this.#drop();
    await this.#loop;
    const client = this.#client;
    this.#client = null;
    if (this.#leading) {
      this.#leading = false;
      await Promise.all(this.#runners.map((runner) => runner.transition(false)));
      // Given back explicitly (a closing connection would release it too): the next instance leads
      // at once instead of after our socket's teardown.
      await client
        ?.query('SELECT pg_advisory_unlock($1, $2)', [
          this.#options.lock.classId,
          this.#options.lock.objectId,
        ])
        .catch(() => undefined);
    }
    await client?.end().catch(() => undefined);
  }

  /** Leading: a check per interval. Following: back in the lock queue at once, after a failure an interval later. */
  async #run(first: Attempt): Promise<void> {
    let last = first;
    while (!this.#stopped) {
      if (last !== 'taken') await this.#pause(this.#timing.checkMs);
      if (this.#stopped) return;
      if (this.#leading) {
        await this.#check();
        last = 'leading';
      } else last = await this.#attempt('SELECT true AS locked FROM pg_advisory_lock($1, $2)');
    }
  }

  /** Tries for the lock (`sql` answers `locked`), waiting in PostgreSQL's queue if it says so. */
  async #attempt(sql: string): Promise<Attempt> {
    try {
      const client = await this.#connection();
      const { classId, objectId } = this.#options.lock;
      const answered = await settlesWithin(
        client.query<{ locked: boolean }>(sql, [classId, objectId]),
        this.#timing.waitMs + this.#timing.checkTimeoutMs,
      );
      if (!answered) throw new Error('the lock connection did not answer');
      // Stopped while it was granted: the connection is closing, the lock goes with it.
      if (!answered.value.rows[0]?.locked || this.#stopped) return 'taken';
      this.#leading = true;
      this.#options.log.info('this instance leads: the race engine and the chat integrations run here');
      await Promise.all(this.#runners.map((runner) => runner.transition(true)));
      return 'leading';
    } catch (error) {
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return 'taken';
      if (!this.#stopped)
        this.#options.log.warn({ err: error }, 'the leader lock could not be tried; trying again');
      this.#drop();
      return 'failed';
    }
  }

  async #check(): Promise<void> {
    const client = this.#client;
    try {
      const answered = client
        ? await settlesWithin(client.query('SELECT 1'), this.#timing.checkTimeoutMs)
        : null;
      if (!answered) this.#lost(new Error('the lock connection did not answer its check'));
    } catch (error) {
      this.#lost(error);
    }
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The connection that holds (or waits for) the lock, opened on first need. */
  async #connection(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const { idle, interval, count } = SERVER_KEEPALIVE;
    const client = new pg.Client({
      connectionString: this.#options.databaseUrl,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      application_name: 'telerace-leadership',
      options: [
        `-c tcp_keepalives_idle=${idle}`,
        `-c tcp_keepalives_interval=${interval}`,
        `-c tcp_keepalives_count=${count}`,
        `-c lock_timeout=${this.#timing.waitMs}`,
      ].join(' '),
    });
    // Without a listener an 'error' would crash the process; the lock went with the connection.
    // A connection already dropped says nothing about the current one.
    client.on('error', (error) => {
      if (this.#client === client) this.#lost(error);
    });
    client.on('end', () => {
      if (this.#client === client) this.#lost(new Error('connection ended'));
    });
    this.#client = client;
    await client.connect();
    return client;
  }

  /** The lock's connection is gone: the lock with it. Roles follow now, the campaign goes on. */
  #lost(error: unknown): void {
    this.#drop();
    if (!this.#leading) return;
    this.#leading = false;
    this.#options.log.error({ err: error }, 'the leader lock was lost (its connection failed): following');
    for (const runner of this.#runners) void runner.transition(false);
  }

  #drop(): void {
    const client = this.#client;
    this.#client = null;
    client?.end().catch(() => undefined);
  }
}
