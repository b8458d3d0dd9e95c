/**
 * Leadership (issue 15, docs/decisions.md "Scale-out"): the work that must run on exactly one
 * instance — the race engine's timers and lap counting, the chat integrations' connections — runs
 * on the holder of a PostgreSQL session-level advisory lock, taken on a dedicated connection (not
 * one of the pool's, which come and go). PostgreSQL releases the lock the moment that connection
 * ends, so a crashed leader's lock is free at once; the followers try for it every second.
 *
 * A module hands its leader-only work over as a role (`assign`): `lead` when this instance becomes
 * the leader (start as at start-up: resume from the database), `follow` when it stops being one
 * (stop the timers now: never two engines). Without REDIS_URL the one process is always the
 * leader (`SoleLeadership`): its roles lead from the start, exactly as before.
 */
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

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
   * Hands a role over: it leads now if this instance is the leader (resolved once its `lead` is
   * done), and follows the leadership from then on.
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

export interface AdvisoryLockLeadershipOptions {
  /** The PostgreSQL to lock in (DATABASE_URL): locks are per database. */
  databaseUrl: string;
  log: FastifyBaseLogger;
  /** How often a follower tries for the lock and a leader checks its connection. */
  retryMs?: number;
  lock?: { classId: number; objectId: number };
}

/**
 * The leader is whoever holds the advisory lock. A leader checks its connection at each interval
 * (`SELECT 1` with a timeout): a connection that fails or stops answering means the lock may be
 * someone else's already, so the roles follow at once and the campaign starts over on a new
 * connection.
 */
export class AdvisoryLockLeadership implements Leadership {
  readonly #options: Required<AdvisoryLockLeadershipOptions>;
  readonly #runners: RoleRunner[] = [];
  #client: pg.Client | null = null;
  #leading = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #attempt: Promise<void> = Promise.resolve();

  constructor(options: AdvisoryLockLeadershipOptions) {
    this.#options = { retryMs: 1_000, lock: LEADER_LOCK, ...options };
  }

  get leading(): boolean {
    return this.#leading;
  }

  async assign(role: LeaderRole): Promise<void> {
    const runner = new RoleRunner(role, this.#options.log);
    this.#runners.push(runner);
    if (this.#leading) await runner.transition(true);
  }

  async start(): Promise<void> {
    this.#stopped = false;
    await this.#try();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#attempt;
    const client = this.#client;
    this.#client = null;
    if (this.#leading) {
      this.#leading = false;
      await Promise.all(this.#runners.map((runner) => runner.transition(false)));
      // Given back explicitly (a closing connection would release it too): the next instance leads
      // at its next try instead of after our socket's teardown.
      await client
        ?.query('SELECT pg_advisory_unlock($1, $2)', [
          this.#options.lock.classId,
          this.#options.lock.objectId,
        ])
        .catch(() => undefined);
    }
    await client?.end().catch(() => undefined);
  }

  /** One attempt (or, when leading, one check), then the next one is scheduled. */
  #try(): Promise<void> {
    this.#attempt = (this.#leading ? this.#check() : this.#campaign()).finally(() => {
      if (!this.#stopped) this.#timer = setTimeout(() => void this.#try(), this.#options.retryMs);
    });
    return this.#attempt;
  }

  async #campaign(): Promise<void> {
    try {
      const client = await this.#connection();
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1, $2) AS locked',
        [this.#options.lock.classId, this.#options.lock.objectId],
      );
      if (!rows[0]?.locked || this.#stopped) return;
      this.#leading = true;
      this.#options.log.info('this instance leads: the race engine and the chat integrations run here');
      await Promise.all(this.#runners.map((runner) => runner.transition(true)));
    } catch (error) {
      this.#options.log.warn({ err: error }, 'the leader lock could not be tried; trying again');
      this.#drop();
    }
  }

  async #check(): Promise<void> {
    try {
      await this.#client?.query('SELECT 1');
    } catch (error) {
      this.#lost(error);
    }
  }

  /** The connection that holds (or tries for) the lock, opened on first need. */
  async #connection(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const client = new pg.Client({
      connectionString: this.#options.databaseUrl,
      // A leader whose PostgreSQL stops answering must notice within a retry or two.
      query_timeout: Math.max(2 * this.#options.retryMs, 1_000),
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      application_name: 'telerace-leadership',
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
