CREATE TABLE "notify_deliveries" (
	"workflow_id" text NOT NULL,
	"run_id" text NOT NULL,
	"event" text NOT NULL,
	"target" text NOT NULL,
	"http_status" integer NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	CONSTRAINT "notify_deliveries_workflow_id_run_id_event_target_pk" PRIMARY KEY("workflow_id","run_id","event","target")
);
--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "token_usage" bigint;--> statement-breakpoint
ALTER TABLE "raw_responses" ADD COLUMN "token_usage" bigint;