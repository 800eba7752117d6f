CREATE TABLE "export_watermarks" (
	"pipeline" text NOT NULL,
	"table_name" text NOT NULL,
	"last_load_id" bigint NOT NULL,
	"exported_at" timestamp with time zone NOT NULL,
	CONSTRAINT "export_watermarks_pipeline_table_name_pk" PRIMARY KEY("pipeline","table_name")
);
