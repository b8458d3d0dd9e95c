CREATE TABLE "race_laps" (
	"id" serial PRIMARY KEY NOT NULL,
	"race_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"car_id" integer NOT NULL,
	"lap_number" integer NOT NULL,
	"lap_time_ms" integer NOT NULL,
	"completed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "race_participants" (
	"race_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"car_id" integer NOT NULL,
	"is_ready" boolean DEFAULT false NOT NULL,
	"joined_at" timestamp with time zone NOT NULL,
	"last_pass_at" timestamp with time zone,
	"laps" integer DEFAULT 0 NOT NULL,
	"last_lap_ms" integer,
	"best_lap_ms" integer,
	"position" integer,
	CONSTRAINT "race_participants_race_id_user_id_pk" PRIMARY KEY("race_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "races" (
	"id" serial PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"countdown_ends_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"end_reason" text,
	"min_lap_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "seasons" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"starts_at" timestamp with time zone,
	"ends_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "user_race_stats" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"best_race_laps" integer NOT NULL,
	"best_race_lap_ms" integer,
	"best_race_id" integer,
	"total_races" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cars" ADD COLUMN "lap_counter_id" text;--> statement-breakpoint
ALTER TABLE "race_laps" ADD CONSTRAINT "race_laps_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "race_laps" ADD CONSTRAINT "race_laps_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "race_laps" ADD CONSTRAINT "race_laps_car_id_cars_id_fk" FOREIGN KEY ("car_id") REFERENCES "public"."cars"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "race_participants" ADD CONSTRAINT "race_participants_race_id_races_id_fk" FOREIGN KEY ("race_id") REFERENCES "public"."races"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "race_participants" ADD CONSTRAINT "race_participants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "race_participants" ADD CONSTRAINT "race_participants_car_id_cars_id_fk" FOREIGN KEY ("car_id") REFERENCES "public"."cars"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_race_stats" ADD CONSTRAINT "user_race_stats_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_race_stats" ADD CONSTRAINT "user_race_stats_best_race_id_races_id_fk" FOREIGN KEY ("best_race_id") REFERENCES "public"."races"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "race_laps_race_user_lap_key" ON "race_laps" USING btree ("race_id","user_id","lap_number");--> statement-breakpoint
CREATE UNIQUE INDEX "race_participants_race_car_key" ON "race_participants" USING btree ("race_id","car_id");--> statement-breakpoint
CREATE INDEX "race_participants_user_idx" ON "race_participants" USING btree ("user_id","race_id");--> statement-breakpoint
CREATE UNIQUE INDEX "races_one_unfinished" ON "races" USING btree ((true)) WHERE "races"."finished_at" is null;--> statement-breakpoint
CREATE INDEX "races_finished_at_idx" ON "races" USING btree ("finished_at");--> statement-breakpoint
CREATE INDEX "user_race_stats_rank_idx" ON "user_race_stats" USING btree ("best_race_laps" desc,"best_race_lap_ms" asc nulls last,"user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "cars_lap_counter_id_key" ON "cars" USING btree ("lap_counter_id") WHERE "cars"."deleted_at" is null;--> statement-breakpoint
INSERT INTO "seasons" ("id", "name") VALUES (0, 'Season 0') ON CONFLICT DO NOTHING;
