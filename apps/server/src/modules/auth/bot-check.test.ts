import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_KEYS } from '@telerace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../test/app.js';
import { newAccount } from '../../test/auth.js';

/** A stand-in for Google's siteverify: token "human" passes, anything else fails. */
let server: Server;
let verifyUrl: string;
const received: URLSearchParams[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const form = new URLSearchParams(body);
      received.push(form);
      if (form.get('response') === 'server-error') {
        response.writeHead(500).end();
        return;
      }
      const success = form.get('secret') === 'the-secret' && form.get('response') === 'human';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(success ? { success } : { success, 'error-codes': ['invalid-input-response'] }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  verifyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/recaptcha/api/siteverify`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('bot check with RECAPTCHA_SECRET', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp({ RECAPTCHA_SECRET: 'the-secret', RECAPTCHA_VERIFY_URL: verifyUrl });
  });
  afterAll(() => t.close());

  const signupWith = (recaptchaToken: string | undefined, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/signup',
      payload: { ...newAccount(), ...(recaptchaToken === undefined ? {} : { recaptchaToken }) },
      remoteAddress,
    });

  it('sends secret, token and client IP to siteverify and accepts a passing token', async () => {
    const response = await signupWith('human', '10.1.0.1');
    expect(response.statusCode).toBe(201);
    const form = received.at(-1);
    expect(form?.get('secret')).toBe('the-secret');
    expect(form?.get('response')).toBe('human');
    expect(form?.get('remoteip')).toBe('10.1.0.1');
  });

  it.each([
    ['a failing token', 'robot'],
    ['no token', undefined],
    ['an error from siteverify', 'server-error'],
  ])('refuses %s with 400 botCheckFailed (sign-up and login)', async (_name, token) => {
    const response = await signupWith(token, '10.1.0.2');
    expect(response.statusCode).toBe(400);
    expect(response.json().errorKey).toBe(ERROR_KEYS.botCheckFailed);
    const loginResponse = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: {
        email: 'a@example.com',
        password: 'whatever it is',
        ...(token ? { recaptchaToken: token } : {}),
      },
    });
    expect(loginResponse.statusCode).toBe(400);
    expect(loginResponse.json().errorKey).toBe(ERROR_KEYS.botCheckFailed);
  });

  it('does not log that the check is disabled', () => {
    expect(t.logText()).not.toContain('bot check disabled');
  });
});

describe('bot check without RECAPTCHA_SECRET', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp({ RECAPTCHA_VERIFY_URL: verifyUrl });
  });
  afterAll(() => t.close());

  it('is disabled, said once at start-up, and never asks siteverify', async () => {
    const before = received.length;
    const response = await t.app.inject({ method: 'POST', url: '/api/signup', payload: newAccount() });
    expect(response.statusCode).toBe(201);
    expect(received.length).toBe(before);
    const lines = t.logLines().filter((l) => l.msg === 'bot check disabled: RECAPTCHA_SECRET is not set');
    expect(lines).toHaveLength(1);
  });
});

describe('bot check when siteverify cannot be reached', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    // A port nothing listens on.
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    t = await startTestApp({
      RECAPTCHA_SECRET: 'the-secret',
      RECAPTCHA_VERIFY_URL: `http://127.0.0.1:${port}/`,
    });
  });
  afterAll(() => t.close());

  it('fails closed and logs the failure', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/signup',
      payload: { ...newAccount(), recaptchaToken: 'human' },
    });
    expect(response.statusCode).toBe(400);
    expect(t.logText()).toContain('siteverify could not be reached');
    expect(t.logText()).not.toContain('the-secret');
  });
});
