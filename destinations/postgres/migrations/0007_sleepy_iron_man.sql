CREATE TABLE "schema_history" (
	"table_name" text NOT NULL,
	"column_name" text NOT NULL,
	"data_type" text NOT NULL,
	"change" text NOT NULL,
	"variant_of" text,
	"pipeline" text NOT NULL,
	"load_id" bigint NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "schema_history_table_name_column_name_pk" PRIMARY KEY("table_name","column_name")
);
--> statement-breakpoint
ALTER TABLE "result_content_fields" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "result_content_items" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP TABLE "result_content_fields" CASCADE;--> statement-breakpoint
DROP TABLE "result_content_items" CASCADE;--> statement-breakpoint
ALTER TABLE "marketplace_shops" RENAME COLUMN "shopid" TO "shop_id";--> statement-breakpoint
ALTER TABLE "marketplace_shops" DROP COLUMN "extra";--> statement-breakpoint
ALTER TABLE "marketplace_shops" ADD COLUMN "last_active_time_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "marketplace_shops" DROP CONSTRAINT "marketplace_shops_pipeline_shopid_pk";--> statement-breakpoint
ALTER TABLE "marketplace_shops" ADD CONSTRAINT "marketplace_shops_pipeline_shop_id_pk" PRIMARY KEY("pipeline","shop_id");--> statement-breakpoint
ALTER TABLE "marketplace_products" ADD COLUMN "ctime_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "marketplace_shops" ADD COLUMN "ctime_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "job_records" DROP COLUMN "extra";--> statement-breakpoint
ALTER TABLE "marketplace_product_models" DROP COLUMN "extra";--> statement-breakpoint
ALTER TABLE "marketplace_products" DROP COLUMN "extra";