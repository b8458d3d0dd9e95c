/** The two-instance harness itself: both processes start on one database and answer as one site. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwoInstances, type TwoInstances } from '../test/instances.js';
import { apiCall } from '../test/process.js';

describe('two instances on one PostgreSQL and one Redis', () => {
  let pair: TwoInstances;
  beforeAll(async () => {
    pair = await startTwoInstances();
  }, 120_000);
  afterAll(async () => {
    await pair?.dispose();
  });

  it("accept each other's access tokens and see the same accounts", async () => {
    const { user } = await apiCall<{ user: { email: string } }>(
      pair.b.base,
      'GET',
      '/me',
      undefined,
      pair.adminToken,
    );
    expect(user.email).toBe(pair.admin.email);
  });
});
