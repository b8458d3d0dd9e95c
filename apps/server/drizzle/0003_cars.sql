CREATE TABLE "car_sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"car_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"control_token_hash" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"end_reason" text
);
--> statement-breakpoint
CREATE TABLE "cars" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"image_url" text,
	"secret_hash" text NOT NULL,
	"stream_id" integer GENERATED ALWAYS AS (1000 + id) STORED NOT NULL,
	"config_forward_speed" integer DEFAULT 100 NOT NULL,
	"config_backward_speed" integer DEFAULT 100 NOT NULL,
	"config_steering_trim" integer DEFAULT 0 NOT NULL,
	"control_code" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "cars_forward_speed_check" CHECK ("cars"."config_forward_speed" between 20 and 100),
	CONSTRAINT "cars_backward_speed_check" CHECK ("cars"."config_backward_speed" between 20 and 100),
	CONSTRAINT "cars_steering_trim_check" CHECK ("cars"."config_steering_trim" between -50 and 50)
);
--> statement-breakpoint
ALTER TABLE "car_sessions" ADD CONSTRAINT "car_sessions_car_id_cars_id_fk" FOREIGN KEY ("car_id") REFERENCES "public"."cars"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "car_sessions" ADD CONSTRAINT "car_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "car_sessions_control_token_hash_key" ON "car_sessions" USING btree ("control_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "car_sessions_one_live_per_car" ON "car_sessions" USING btree ("car_id") WHERE "car_sessions"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "car_sessions_user_idx" ON "car_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "cars_stream_id_key" ON "cars" USING btree ("stream_id");