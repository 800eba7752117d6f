CREATE TABLE `schema_history` (
	`table_name` text NOT NULL,
	`column_name` text NOT NULL,
	`data_type` text NOT NULL,
	`change` text NOT NULL,
	`variant_of` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`changed_at` text NOT NULL,
	PRIMARY KEY(`table_name`, `column_name`)
);
--> statement-breakpoint
DROP TABLE `result_content_fields`;--> statement-breakpoint
DROP TABLE `result_content_items`;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_marketplace_shops` (
	`shop_id` integer NOT NULL,
	`userid` integer,
	`name` text,
	`username` text,
	`place` text,
	`shop_location` text,
	`last_active_time` integer,
	`ctime` integer,
	`vacation` integer,
	`status` integer,
	`is_shopee_verified` integer,
	`is_preferred_plus_seller` integer,
	`is_official_shop` integer,
	`is_individual_seller` integer,
	`is_mart` integer,
	`item_count` integer,
	`rating_star` real,
	`rating_bad` integer,
	`rating_good` integer,
	`rating_normal` integer,
	`response_rate` real,
	`response_time` real,
	`follower_count` integer,
	`sold_total` integer,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	`last_active_time_at` text,
	`ctime_at` text,
	PRIMARY KEY(`pipeline`, `shop_id`)
);
--> statement-breakpoint
INSERT INTO `__new_marketplace_shops`("shop_id", "userid", "name", "username", "place", "shop_location", "last_active_time", "ctime", "vacation", "status", "is_shopee_verified", "is_preferred_plus_seller", "is_official_shop", "is_individual_seller", "is_mart", "item_count", "rating_star", "rating_bad", "rating_good", "rating_normal", "response_rate", "response_time", "follower_count", "sold_total", "pipeline", "load_id", "loaded_at", "row_hash", "last_active_time_at", "ctime_at") SELECT "shopid", "userid", "name", "username", "place", "shop_location", "last_active_time", "ctime", "vacation", "status", "is_shopee_verified", "is_preferred_plus_seller", "is_official_shop", "is_individual_seller", "is_mart", "item_count", "rating_star", "rating_bad", "rating_good", "rating_normal", "response_rate", "response_time", "follower_count", "sold_total", "pipeline", "load_id", "loaded_at", "row_hash", NULL, NULL FROM `marketplace_shops`;--> statement-breakpoint
DROP TABLE `marketplace_shops`;--> statement-breakpoint
ALTER TABLE `__new_marketplace_shops` RENAME TO `marketplace_shops`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `marketplace_shops_load_idx` ON `marketplace_shops` (`pipeline`,`load_id`);--> statement-breakpoint
ALTER TABLE `marketplace_products` ADD `ctime_at` text;--> statement-breakpoint
ALTER TABLE `marketplace_products` DROP COLUMN `extra`;--> statement-breakpoint
ALTER TABLE `job_records` DROP COLUMN `extra`;--> statement-breakpoint
ALTER TABLE `marketplace_product_models` DROP COLUMN `extra`;