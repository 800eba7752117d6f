ALTER TABLE "export_watermarks" ADD COLUMN "last_run" text;--> statement-breakpoint
ALTER TABLE "export_watermarks" ADD COLUMN "last_file" text;--> statement-breakpoint
ALTER TABLE "export_watermarks" ADD COLUMN "last_rows" bigint;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "export_status" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "export_error" text;