CREATE TABLE "oauth_states" (
	"id" serial PRIMARY KEY NOT NULL,
	"state_hash" text NOT NULL,
	"binding_hash" text NOT NULL,
	"platform" text NOT NULL,
	"action" text NOT NULL,
	"code_verifier" text NOT NULL,
	"user_id" integer,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "prizes" (
	"id" serial PRIMARY KEY NOT NULL,
	"raffle_id" integer NOT NULL,
	"rank" integer NOT NULL,
	"platform" text NOT NULL,
	"platform_user_id" text NOT NULL,
	"display_name" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"claimed_at" timestamp with time zone,
	"claimed_by_user_id" integer,
	"cleared_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "raffle_entries" (
	"raffle_id" integer NOT NULL,
	"platform" text NOT NULL,
	"platform_user_id" text NOT NULL,
	"display_name" text NOT NULL,
	"weight" integer,
	"entered_at" timestamp with time zone NOT NULL,
	CONSTRAINT "raffle_entries_raffle_id_platform_platform_user_id_pk" PRIMARY KEY("raffle_id","platform","platform_user_id")
);
--> statement-breakpoint
CREATE TABLE "raffles" (
	"id" serial PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"racers" integer NOT NULL,
	"seed" text NOT NULL,
	"commitment" text NOT NULL,
	"entries_hash" text,
	"opened_at" timestamp with time zone NOT NULL,
	"drawn_at" timestamp with time zone,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "oauth_states" ADD CONSTRAINT "oauth_states_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prizes" ADD CONSTRAINT "prizes_raffle_id_raffles_id_fk" FOREIGN KEY ("raffle_id") REFERENCES "public"."raffles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prizes" ADD CONSTRAINT "prizes_claimed_by_user_id_users_id_fk" FOREIGN KEY ("claimed_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "raffle_entries" ADD CONSTRAINT "raffle_entries_raffle_id_raffles_id_fk" FOREIGN KEY ("raffle_id") REFERENCES "public"."raffles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_states_state_hash_key" ON "oauth_states" USING btree ("state_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "prizes_raffle_identity_key" ON "prizes" USING btree ("raffle_id","platform","platform_user_id");--> statement-breakpoint
CREATE INDEX "prizes_identity_idx" ON "prizes" USING btree ("platform","platform_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "raffles_one_open" ON "raffles" USING btree ((true)) WHERE "raffles"."status" = 'open';