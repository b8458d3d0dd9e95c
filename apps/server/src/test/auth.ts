/** Test helpers for accounts and sessions: sign up, log in, read the refresh cookie. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { REFRESH_COOKIE } from '../modules/auth/auth.routes.js';

let counter = 0;

export interface TestAccount {
  email: string;
  username: string;
  password: string;
}

/** A unique, acceptable account (not yet created). */
export function newAccount(overrides: Partial<TestAccount> = {}): TestAccount {
  counter += 1;
  const id = `${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    email: `driver-${id}@example.com`,
    username: `driver-${id}`.slice(0, 30),
    password: 'correct horse battery staple',
    ...overrides,
  };
}

export async function signup(
  app: FastifyInstance,
  account: TestAccount = newAccount(),
): Promise<TestAccount> {
  // Each sign-up from its own address: sign-ups are rate-limited per IP.
  const remoteAddress = `10.200.${Math.floor(counter / 250) % 250}.${(counter % 250) + 1}`;
  counter += 1;
  const response = await app.inject({ method: 'POST', url: '/api/signup', payload: account, remoteAddress });
  expect(response.statusCode, response.body).toBe(201);
  return account;
}

/** The refresh cookie a response sets (its raw value and attributes), if any. */
export function refreshCookieOf(response: LightMyRequestResponse) {
  return response.cookies.find((c) => c.name === REFRESH_COOKIE);
}

export interface LoggedIn {
  accessToken: string;
  /** The raw refresh token (the cookie's value). */
  refreshToken: string;
  response: LightMyRequestResponse;
}

export async function login(
  app: FastifyInstance,
  account: Pick<TestAccount, 'email' | 'password'>,
  headers: Record<string, string> = {},
): Promise<LoggedIn> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/login',
    payload: { email: account.email, password: account.password },
    headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  const cookie = refreshCookieOf(response);
  expect(cookie).toBeDefined();
  return { accessToken: response.json().accessToken, refreshToken: cookie?.value ?? '', response };
}

export function refresh(app: FastifyInstance, refreshToken?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/refresh-token',
    ...(refreshToken ? { cookies: { [REFRESH_COOKIE]: refreshToken } } : {}),
  });
}
