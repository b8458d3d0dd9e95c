/**
 * The limits on control codes beyond the per-IP one, through real HTTP: a code dies after 10 wrong
 * tries on its car (counted exactly, even when the guesses arrive together), expires after
 * CONTROL_CODE_TTL_MINUTES, and each member has a budget of wrong codes whatever address they use.
 * TRUST_PROXY=1 lets each request come "from" its own address, so the per-IP limit stays out of
 * the way and the per-member budget is shown to hold against a client that rotates addresses.
 */
import { ERROR_KEYS } from '@telerace/protocol';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cars } from '../../db/schema.js';
import type { UserRow } from '../../kernel/users.repo.js';
import { startTestApp } from '../../test/app.js';
import { buildUser, tokenFor } from '../../test/factories.js';
import { createCar, type Driving, generateCode, listen } from '../../test/sockets.js';
import { CODE_FAILURES_PER_CAR, WRONG_CODES_PER_MEMBER_PER_HOUR } from './driving-sessions.js';
import { provisionSimCars } from './sim-cars.js';

const TTL_MINUTES = 30;

let t: Awaited<ReturnType<typeof startTestApp>>;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '1', CONTROL_CODE_TTL_MINUTES: String(TTL_MINUTES) });
  base = `http://${await listen(t.app)}`;
});
afterAll(() => t.close());

let addressCounter = 0;
/** A new client address for each request (the proxy's X-Forwarded-For). */
const nextAddress = () => {
  addressCounter += 1;
  return `198.51.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
};

async function connect(user: UserRow, carId: number, code: string) {
  const response = await fetch(`${base}/api/cars/${carId}/connect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await tokenFor(t.app, user)}`,
      'x-forwarded-for': nextAddress(),
    },
    body: JSON.stringify({ code }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as never };
}

/** A code of the right shape that is not `code`. */
const wrongCode = (code: string, n = 0) => {
  const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  let other = code;
  for (let i = n; other === code; i += 1) other = `${code.slice(0, -1)}${alphabet[i % alphabet.length]}`;
  return other;
};

async function carRow(carId: number) {
  const [row] = await t.app.database.db.select().from(cars).where(eq(cars.id, carId));
  if (!row) throw new Error(`no car ${carId}`);
  return row;
}

async function adminView(driving: Driving) {
  const response = await fetch(`${base}/api/admin/cars`, { headers: driving.adminHeaders });
  const list = (await response.json()) as {
    id: number;
    control_code: string | null;
    control_code_expires_at: string | null;
  }[];
  const car = list.find((c) => c.id === driving.carId);
  if (!car) throw new Error('car missing from the admin list');
  return car;
}

const INVALID = { error: 'Invalid control code', errorKey: ERROR_KEYS.invalidControlCode };

describe('a car code dies after 10 wrong tries on that car', () => {
  it('the right code no longer opens the car after 10 wrong ones (from 10 members)', async () => {
    const driving = await createCar(t.app);
    const code = await generateCode(t.app, driving);
    for (let i = 0; i < CODE_FAILURES_PER_CAR; i += 1) {
      const guesser = await buildUser(t.app.database.db);
      const answer = await connect(guesser, driving.carId, wrongCode(code, i));
      expect(answer).toMatchObject({ status: 403, body: INVALID });
    }
    const driver = await buildUser(t.app.database.db);
    // Dead, answered like any wrong code: a guesser learns nothing from the answer.
    expect(await connect(driver, driving.carId, code)).toMatchObject({ status: 403, body: INVALID });
    expect(await carRow(driving.carId)).toMatchObject({ controlCode: null, controlCodeExpiresAt: null });
    expect(await adminView(driving)).toMatchObject({ control_code: null, control_code_expires_at: null });
    expect(
      t.logLines().some((line) => line.msg === 'control code invalidated after too many wrong tries'),
    ).toBe(true);

    // The admin generates a new one: it works, and the count starts again.
    const fresh = await generateCode(t.app, driving);
    expect((await carRow(driving.carId)).controlCodeFailures).toBe(0);
    expect((await connect(driver, driving.carId, fresh)).status).toBe(200);
  });

  it('9 wrong tries leave the code working', async () => {
    const driving = await createCar(t.app);
    const code = await generateCode(t.app, driving);
    for (let i = 0; i < CODE_FAILURES_PER_CAR - 1; i += 1) {
      const guesser = await buildUser(t.app.database.db);
      expect((await connect(guesser, driving.carId, wrongCode(code, i))).status).toBe(403);
    }
    expect((await carRow(driving.carId)).controlCodeFailures).toBe(CODE_FAILURES_PER_CAR - 1);
    const driver = await buildUser(t.app.database.db);
    expect((await connect(driver, driving.carId, code)).status).toBe(200);
  });

  it('counts guesses arriving together exactly: 9 at once leave the code alive, 14 at once count 10', async () => {
    const driving = await createCar(t.app);
    const code = await generateCode(t.app, driving);
    const guessers = await Promise.all(Array.from({ length: 14 }, () => buildUser(t.app.database.db)));
    const nine = await Promise.all(
      guessers.slice(0, 9).map((guesser, i) => connect(guesser, driving.carId, wrongCode(code, i))),
    );
    expect(nine.map((answer) => answer.status)).toEqual(Array(9).fill(403));
    expect(await carRow(driving.carId)).toMatchObject({ controlCodeFailures: 9, controlCode: code });

    const second = await createCar(t.app);
    const secondCode = await generateCode(t.app, second);
    await Promise.all(guessers.map((guesser, i) => connect(guesser, second.carId, wrongCode(secondCode, i))));
    expect(await carRow(second.carId)).toMatchObject({ controlCodeFailures: 10, controlCode: null });
  });
});

describe('a code expires', () => {
  it('lives CONTROL_CODE_TTL_MINUTES, shown to admins; an expired code is refused like a wrong one', async () => {
    const driving = await createCar(t.app);
    const before = Date.now();
    const code = await generateCode(t.app, driving);
    const view = await adminView(driving);
    expect(view.control_code).toBe(code);
    const expiresAt = Date.parse(view.control_code_expires_at ?? '');
    expect(expiresAt).toBeGreaterThanOrEqual(before + TTL_MINUTES * 60_000 - 5_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + TTL_MINUTES * 60_000 + 5_000);

    await t.app.database.db
      .update(cars)
      .set({ controlCodeExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(cars.id, driving.carId));
    const driver = await buildUser(t.app.database.db);
    expect(await connect(driver, driving.carId, code)).toMatchObject({ status: 403, body: INVALID });

    const fresh = await generateCode(t.app, driving);
    expect((await connect(driver, driving.carId, fresh)).status).toBe(200);
  });

  it('simulated cars get codes with the same lifetime', async () => {
    const [sim] = await provisionSimCars(t.app.adminCars, t.config.dataDir, 1);
    const row = await carRow(sim?.id ?? 0);
    expect(row.controlCode).toBe(sim?.code);
    expect(row.controlCodeFailures).toBe(0);
    const remainingMs = (row.controlCodeExpiresAt?.getTime() ?? 0) - Date.now();
    expect(remainingMs).toBeGreaterThan((TTL_MINUTES - 1) * 60_000);
    expect(remainingMs).toBeLessThanOrEqual(TTL_MINUTES * 60_000 + 5_000);
  });
});

describe("each member's budget of wrong codes", () => {
  it('20 wrong codes an hour across cars and addresses, then 429 with Retry-After, even for a right code', async () => {
    const member = await buildUser(t.app.database.db);
    const targets = await Promise.all([createCar(t.app), createCar(t.app), createCar(t.app)]);
    const codes = await Promise.all(targets.map((driving) => generateCode(t.app, driving)));
    for (let i = 0; i < WRONG_CODES_PER_MEMBER_PER_HOUR; i += 1) {
      const k = i % targets.length;
      const answer = await connect(member, targets[k]?.carId ?? 0, wrongCode(codes[k] ?? '', i));
      expect(answer.status).toBe(403);
    }
    const refused = await connect(member, targets[0]?.carId ?? 0, codes[0] ?? '');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ errorKey: ERROR_KEYS.tooManyControlCodeAttempts });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Refused before the code was looked at: the car's count did not move.
    expect((await carRow(targets[0]?.carId ?? 0)).controlCodeFailures).toBe(7);

    // Someone else is not held back by this member's guesses.
    const other = await buildUser(t.app.database.db);
    expect((await connect(other, targets[0]?.carId ?? 0, codes[0] ?? '')).status).toBe(200);
  });
});
