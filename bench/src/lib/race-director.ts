/**
 * The soak run's race control: races back to back through the admin API, as an operator runs an
 * evening, with a raffle for each race. One cycle: a raffle is open (chat viewers' entries arrive
 * through the admin's "add entry" call at a steady pace), the drivers take their cars and join
 * the lobby, the admin starts the race, it runs (to its end time, or the admin ends it after
 * `raceSeconds`), the results are written, then the raffle is drawn (which opens the next lobby)
 * and the next one opens. Every race's counted laps and every raffle's entries are kept for the
 * run's checks: entries the server accepted against those its published record holds.
 */

import type { RaceLaps } from './lap-check.js';
import type { MemberSession } from './member-sessions.js';
import type { ScriptedDriver } from './scripted-driver.js';
import { api } from './telerace-api.js';

const POLL_MS = 250;
/** Drivers taking their car at once (each: a code, `connect`, the controller socket). */
const TAKE_CONCURRENCY = 5;
const PLATFORMS = ['twitch', 'youtube', 'discord'] as const;

interface RaceState {
  race_id: number | null;
  race_status: 'idle' | 'lobby' | 'countdown' | 'active' | 'finishing';
  race_expires_at: string | null;
  totalParticipants: number;
  participants: { carId: number }[];
}

interface RaceDetail {
  id: number;
  started_at: string | null;
  participants: { car_id: number; laps: { lap_time_ms: number; completed_at: string }[] }[];
}

export interface RaffleTally {
  raffleId: number;
  /** Entries the server accepted (200), by platform identity. */
  accepted: string[];
  /** Entries its published record holds once drawn (null: not drawn). */
  recorded: string[] | null;
  /** Entries refused or failed, with why. */
  failed: string[];
}

export interface DirectorOptions {
  base: string;
  admin: MemberSession;
  drivers: ScriptedDriver[];
  raceSeconds: number;
  entriesPerSecond: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RaceDirector {
  readonly #options: DirectorOptions;
  readonly races: RaceLaps[] = [];
  readonly raffles: RaffleTally[] = [];
  /** What went other than planned (a join that never showed, a race that would not start). */
  readonly anomalies: string[] = [];
  #stopping = false;
  #stopped: (() => void) | null = null;
  /** The raffle entries go to (null: paused, e.g. while it is drawn). */
  #entriesFor: RaffleTally | null = null;
  #entryInFlight: Promise<void> = Promise.resolve();
  #entrySeq = 0;

  constructor(options: DirectorOptions) {
    this.#options = options;
  }

  get lapsCounted(): number {
    return this.races.reduce((n, r) => n + r.participants.reduce((m, p) => m + p.laps.length, 0), 0);
  }

  get entriesAccepted(): number {
    return this.raffles.reduce((n, r) => n + r.accepted.length, 0);
  }

  async #admin<T>(path: string, method = 'GET'): Promise<T> {
    const { base, admin } = this.#options;
    return api<T>(base, path, { method, token: await admin.fresh() });
  }

  async #state(): Promise<RaceState> {
    return (await this.#admin<{ state: RaceState }>('/admin/race')).state;
  }

  /** Polls the race until `done` says so; null when `timeoutMs` passed first. */
  async #waitFor(done: (s: RaceState) => boolean, timeoutMs: number): Promise<RaceState | null> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const state = await this.#state();
      if (done(state)) return state;
      await pause(POLL_MS);
    }
    return null;
  }

  /** Races until `stop()`; the race running then is ended by the admin and its raffle drawn. */
  async run(): Promise<void> {
    const entries = this.#enterLoop();
    try {
      while (!this.#stopping) await this.#cycle();
    } finally {
      this.#entriesFor = null;
      this.#stopping = true;
      await entries;
    }
  }

  /** Asks the run to end after the race under way (ended now by the admin). */
  stop(): void {
    this.#stopping = true;
    this.#stopped?.();
  }

  async #cycle(): Promise<void> {
    const raffle = await this.#openRaffle();
    const { drivers } = this.#options;
    await this.#takeCars(drivers);
    if (this.#stopping) return this.#draw(raffle);
    for (const driver of drivers) driver.joinLobby();
    const everyone = (s: RaceState) => s.race_status === 'lobby' && s.totalParticipants >= drivers.length;
    let lobby = await this.#waitFor(everyone, 10_000);
    if (!lobby) {
      // A join the engine refused (server_busy, the last race's session not yet closed on this
      // side): the control page tries again, with the car taken again if it was lost meanwhile.
      const state = await this.#state();
      const joined = new Set(state.participants.map((p) => p.carId));
      const missing = drivers.filter((driver) => !joined.has(driver.carId));
      await this.#takeCars(missing);
      for (const driver of missing) driver.joinLobby();
      lobby = await this.#waitFor(everyone, 10_000);
      if (!lobby)
        this.anomalies.push(
          `lobby of ${(await this.#state()).totalParticipants} of ${drivers.length} drivers after 20 s`,
        );
    }
    await this.#admin('/admin/race/start', 'POST');
    const active = await this.#waitFor((s) => s.race_status === 'active', 20_000);
    if (!active?.race_id || !active.race_expires_at)
      throw new Error('the race did not go active within 20 s');
    const expiresAt = Date.parse(active.race_expires_at);
    const endedAt = await this.#runRace(expiresAt);
    const idle = await this.#waitFor((s) => s.race_status === 'idle', 30_000);
    if (!idle) throw new Error(`race ${active.race_id}: results not written within 30 s`);
    await this.#draw(raffle);
    await this.#keepResults(active.race_id, endedAt);
  }

  /**
   * Until the race's end time, or the admin ends it after `raceSeconds` (shorter than the race
   * length setting), or at once when the run stops. Answers when it ended (epoch ms).
   */
  async #runRace(expiresAt: number): Promise<number> {
    const wakeAt = Math.min(expiresAt, Date.now() + this.#options.raceSeconds * 1000);
    if (!this.#stopping)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, wakeAt - Date.now()));
        this.#stopped = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    this.#stopped = null;
    if (Date.now() >= expiresAt) return expiresAt;
    const endedAt = Date.now();
    try {
      await this.#admin('/admin/race/end', 'POST');
    } catch (error) {
      // It reached its end time meanwhile: ended by the timer.
      if (Date.now() < expiresAt) throw error;
      return expiresAt;
    }
    return endedAt;
  }

  /** Each driver takes their car (a refusal is noted: that driver misses the race). */
  async #takeCars(drivers: ScriptedDriver[]): Promise<void> {
    const queue = [...drivers];
    await Promise.all(
      Array.from({ length: TAKE_CONCURRENCY }, async () => {
        for (let driver = queue.shift(); driver; driver = queue.shift())
          await driver.hold().catch((error: Error) => {
            this.anomalies.push(`car ${driver.carId} not taken: ${error.message}`);
          });
      }),
    );
  }

  async #openRaffle(): Promise<RaffleTally> {
    const { raffle } = await api<{ raffle: { id: number } }>(this.#options.base, '/admin/race/start-raffle', {
      method: 'POST',
      token: await this.#options.admin.fresh(),
      body: { racers: 2 },
    });
    const tally: RaffleTally = { raffleId: raffle.id, accepted: [], recorded: null, failed: [] };
    this.raffles.push(tally);
    this.#entriesFor = tally;
    return tally;
  }

  /** Entries stop (the one on its way lands first), the raffle is drawn, its record compared. */
  async #draw(tally: RaffleTally): Promise<void> {
    this.#entriesFor = null;
    await this.#entryInFlight;
    await this.#admin('/admin/race/draw-winners', 'POST');
    const record = await this.#admin<{ entries: { platform: string; platformUserId: string }[] }>(
      `/raffles/${tally.raffleId}/record`,
    );
    tally.recorded = record.entries.map((e) => `${e.platform}:${e.platformUserId}`);
  }

  /** Viewers entering the open raffle, `entriesPerSecond`, one after another. */
  async #enterLoop(): Promise<void> {
    const { base, admin, entriesPerSecond } = this.#options;
    if (entriesPerSecond <= 0) return;
    while (!this.#stopping || this.#entriesFor) {
      const started = Date.now();
      const tally = this.#entriesFor;
      if (tally) {
        const n = ++this.#entrySeq;
        const platform = PLATFORMS[n % PLATFORMS.length] ?? 'twitch';
        const entry = { platform, platformUserId: `soak-viewer-${n}`, displayName: `Viewer ${n}` };
        this.#entryInFlight = api(base, '/admin/race/raffle-entries', {
          method: 'POST',
          token: await admin.fresh(),
          body: entry,
        }).then(
          () => void tally.accepted.push(`${platform}:${entry.platformUserId}`),
          (error: Error) => void tally.failed.push(`${platform}:${entry.platformUserId}: ${error.message}`),
        );
        await this.#entryInFlight;
      }
      await pause(Math.max(0, 1000 / entriesPerSecond - (Date.now() - started)));
    }
  }

  async #keepResults(raceId: number, endedAt: number): Promise<void> {
    const detail = await api<RaceDetail>(this.#options.base, `/races/${raceId}`);
    if (!detail.started_at) throw new Error(`race ${raceId} has no start time`);
    this.races.push({
      raceId,
      startedAt: Date.parse(detail.started_at),
      endedAt,
      participants: detail.participants.map((p) => ({
        carId: p.car_id,
        laps: p.laps.map((lap) => ({
          completedAt: Date.parse(lap.completed_at),
          lapTimeMs: lap.lap_time_ms,
        })),
      })),
    });
  }
}
