CREATE TABLE "webhook_deliveries" (
	"source" text NOT NULL,
	"delivery_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_source_delivery_id_pk" PRIMARY KEY("source","delivery_id")
);
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_received_idx" ON "webhook_deliveries" USING btree ("received_at");--> statement-breakpoint
ALTER TABLE "ticket_ledger" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "ticket_ledger" ADD COLUMN "platform" text;--> statement-breakpoint
ALTER TABLE "ticket_ledger" ADD COLUMN "platform_user_id" text;--> statement-breakpoint
CREATE INDEX "ticket_ledger_identity_idx" ON "ticket_ledger" USING btree ("platform","platform_user_id");--> statement-breakpoint
ALTER TABLE "ticket_ledger" ADD CONSTRAINT "ticket_ledger_owner_check" CHECK ("ticket_ledger"."user_id" is not null or ("ticket_ledger"."platform" is not null and "ticket_ledger"."platform_user_id" is not null));--> statement-breakpoint
-- Subscriptions now belong to the platform identity (it may have no account yet): the rows written
-- before (keyed by member) take the member's linked id on that platform; rows without one go.
ALTER TABLE "subscriptions" ADD COLUMN "platform_user_id" text;--> statement-breakpoint
UPDATE "subscriptions" s SET "platform_user_id" = CASE s."platform"
	WHEN 'twitch' THEN u."twitch_id" WHEN 'youtube' THEN u."youtube_id" WHEN 'discord' THEN u."discord_id" END
	FROM "users" u WHERE u."id" = s."user_id";--> statement-breakpoint
DELETE FROM "subscriptions" WHERE "platform_user_id" IS NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ALTER COLUMN "platform_user_id" SET NOT NULL;--> statement-breakpoint
DROP INDEX "subscriptions_user_platform_key";--> statement-breakpoint
ALTER TABLE "subscriptions" DROP CONSTRAINT "subscriptions_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "subscriptions" DROP COLUMN "user_id";--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_identity_key" ON "subscriptions" USING btree ("platform","platform_user_id");
