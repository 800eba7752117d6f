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
CREATE INDEX "spend_calls_workflow_idx" ON "spend_calls" USING btree ("workflow_id");;
--> statement-breakpoint
-- Their descriptions (db/schema/descriptions.ts), as 0014_warehouse_docs keeps every other one.
COMMENT ON COLUMN "pipeline_runs"."status_reason" IS 'Why the run ended as it did when its status alone does not say: ''budget'' (a budget limit stopped its calls, docs/budgets.md); NULL otherwise.';
--> statement-breakpoint
COMMENT ON TABLE "spend_calls" IS 'Every billable call to the scraping service, recorded before it is sent, in the transaction that checks the budget''s limits (docs/budgets.md): what spend control counts.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."call_key" IS 'What makes a call unique: workflow, activity, attempt and its execution, URL or create, and client attempt.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."pipeline" IS 'The pipeline whose run made the call.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."project" IS 'The project file (its path) whose budget also counts this call; NULL outside a budgeted project.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."workflow_id" IS 'The Temporal workflow id of the run.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."endpoint" IS '`METHOD /path` of the call.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."request_key" IS 'The URL of a synchronous call, ''create-and-run'' for a create.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."creates_scraper" IS 'Whether the call creates a scraper (create-and-run).';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."called_at" IS 'When the call was recorded (UTC), just before it was sent.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."tokens" IS 'The `tokenUsage` its answer reported; NULL until it arrives or when the answer reports none.';
