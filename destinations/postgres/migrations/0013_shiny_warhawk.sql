ALTER TABLE "pipeline_runs" ADD COLUMN "seen_by_table" text;--> statement-breakpoint
ALTER TABLE "raw_responses" ADD COLUMN "rows_seen" text;