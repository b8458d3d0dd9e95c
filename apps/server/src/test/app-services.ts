/**
 * Tests reach the services through the app, as `app.raffles` or `app.database`: what buildApp
 * built (app.ts `builtApp`) is decorated on the test's app here, and typed by the declaration
 * below, which only the tests see. Production code is typechecked without it
 * (tsconfig.production.json, `npm run lint`): there, a module is handed what it declares and
 * nothing is looked up on the Fastify instance.
 */
import type { FastifyInstance } from 'fastify';
import { type BuiltApp, builtApp } from '../app.js';
import type { Services } from '../module.js';

type Shared = Omit<BuiltApp, 'services'>;

declare module 'fastify' {
  interface FastifyInstance extends Services, Shared {}
}

/** Decorates the app with every service and shared piece buildApp made (before it is ready). */
export function exposeServices(app: FastifyInstance): void {
  const { services, ...shared } = builtApp(app);
  for (const [name, value] of Object.entries({ ...services, ...shared })) app.decorate(name, value as never);
}
