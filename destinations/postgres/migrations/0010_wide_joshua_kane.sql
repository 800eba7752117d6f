ALTER TABLE "pipeline_runs" ADD COLUMN "alert_status" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "alert_error" text;