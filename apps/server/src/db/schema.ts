/**
 * The database schema (drizzle). `drizzle-kit generate` turns changes here into the SQL
 * migrations committed under apps/server/drizzle; write only what PostgreSQL 15 and PGlite both run.
 */
import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Settings an admin changes at run time (e.g. car_session_duration_minutes), one JSON value per key. */
export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
