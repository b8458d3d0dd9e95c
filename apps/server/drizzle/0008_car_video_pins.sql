CREATE TABLE "car_video_pins" (
	"car_id" integer PRIMARY KEY NOT NULL,
	"pin" text NOT NULL,
	"rotated_for_session_id" integer,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "car_video_pins" ADD CONSTRAINT "car_video_pins_car_id_cars_id_fk" FOREIGN KEY ("car_id") REFERENCES "public"."cars"("id") ON DELETE cascade ON UPDATE no action;