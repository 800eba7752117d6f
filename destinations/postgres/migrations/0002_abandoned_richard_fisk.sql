-- IF NOT EXISTS (added by hand): databases that ran a results sync before this migration already hold the
-- same table, which activities/watermark-store.ts used to create on first use.
CREATE TABLE IF NOT EXISTS "sync_watermarks" (
	"pipeline" text NOT NULL,
	"stream" text NOT NULL,
	"watermark" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sync_watermarks_pipeline_stream_pk" PRIMARY KEY("pipeline","stream")
);
