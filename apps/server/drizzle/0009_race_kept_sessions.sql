-- A session's given end, kept apart from `expires_at`, which a race moves later (issue 23).
-- Sessions made before it were never moved: their given end is their end.
ALTER TABLE "car_sessions" ADD COLUMN "nominal_expires_at" timestamp with time zone;--> statement-breakpoint
UPDATE "car_sessions" SET "nominal_expires_at" = "expires_at";--> statement-breakpoint
ALTER TABLE "car_sessions" ALTER COLUMN "nominal_expires_at" SET NOT NULL;
