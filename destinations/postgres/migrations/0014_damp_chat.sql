CREATE TABLE "spend_calls" (
	"call_key" text NOT NULL,
	"pipeline" text NOT NULL,
	"project" text,
	"workflow_id" text NOT NULL,
	"endpoint" text NOT NULL,
	"request_key" text NOT NULL,
	"creates_scraper" boolean NOT NULL,
	"called_at" timestamp with time zone NOT NULL,
	"tokens" bigint,
	CONSTRAINT "spend_calls_call_key_pk" PRIMARY KEY("call_key")
);
--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "status_reason" text;--> statement-breakpoint
CREATE INDEX "spend_calls_pipeline_idx" ON "spend_calls" USING btree ("pipeline","called_at");--> statement-breakpoint
CREATE INDEX "spend_calls_project_idx" ON "spend_calls" USING btree ("project","called_at");--> statement-breakpoint
CREATE INDEX "spend_calls_workflow_idx" ON "spend_calls" USING btree ("workflow_id");