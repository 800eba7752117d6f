CREATE TABLE `job_records` (
	`job_key` text NOT NULL,
	`job_title` text,
	`job_url` text,
	`job_location` text,
	`job_salary_number` real,
	`job_salary_text` text,
	`job_type` text,
	`job_currency` text,
	`extra` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `job_key`)
);
--> statement-breakpoint
CREATE INDEX `job_records_load_idx` ON `job_records` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `leads_results` (
	`id` integer NOT NULL,
	`scraper_id` integer,
	`scraping_run_id` integer,
	`scraper_name` text,
	`scraped_url` text,
	`status` text,
	`content_type` text NOT NULL,
	`content` text,
	`created_at` text,
	`updated_at` text,
	`extra` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `id`)
);
--> statement-breakpoint
CREATE INDEX `leads_results_load_idx` ON `leads_results` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE INDEX `leads_results_run_idx` ON `leads_results` (`scraping_run_id`);--> statement-breakpoint
CREATE TABLE `marketplace_model_stocks` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`model_id` integer NOT NULL,
	`price_stock_index` integer NOT NULL,
	`location_index` integer NOT NULL,
	`allocated_stock` integer,
	`promotion_type` integer,
	`location_id` text,
	`available_stock` integer,
	`fulfilment_type` integer,
	`address_id` integer,
	`location_allocated_stock` integer,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`, `model_id`, `price_stock_index`, `location_index`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_model_stocks_load_idx` ON `marketplace_model_stocks` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_price_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`model_id` integer,
	`price` integer,
	`price_min` integer,
	`price_max` integer,
	`price_before_discount` integer,
	`price_major` real,
	`previous_price` integer,
	`currency` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `marketplace_price_history_item_idx` ON `marketplace_price_history` (`pipeline`,`shop_id`,`item_id`,`model_id`);--> statement-breakpoint
CREATE INDEX `marketplace_price_history_load_idx` ON `marketplace_price_history` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_product_attributes` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`source` text NOT NULL,
	`list_index` integer NOT NULL,
	`name` text,
	`value` text,
	`attribute_id` integer,
	`val_id` integer,
	`is_timestamp` integer,
	`brand_id` integer,
	`brand_option` text,
	`url` text,
	`full_url` text,
	`type` integer,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`, `source`, `list_index`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_product_attributes_load_idx` ON `marketplace_product_attributes` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_product_categories` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`source` text NOT NULL,
	`list_index` integer NOT NULL,
	`catid` integer,
	`display_name` text,
	`no_sub` integer,
	`is_default_subcat` integer,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`, `source`, `list_index`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_product_categories_load_idx` ON `marketplace_product_categories` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_product_images` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`list_index` integer NOT NULL,
	`image` text NOT NULL,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`, `list_index`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_product_images_load_idx` ON `marketplace_product_images` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_product_models` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`model_id` integer NOT NULL,
	`list_index` integer NOT NULL,
	`name` text,
	`status` integer,
	`price` integer,
	`price_before_discount` integer,
	`price_major` real,
	`price_before_discount_major` real,
	`promotion_id` integer,
	`stock` integer,
	`normal_stock` integer,
	`sold` integer,
	`current_promotion_reserved_stock` integer,
	`tier_index` text,
	`is_pre_order` integer,
	`estimated_days` integer,
	`has_gimmick_tag` integer,
	`extra` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`, `model_id`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_product_models_load_idx` ON `marketplace_product_models` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_product_tier_variation_options` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`tier_index` integer NOT NULL,
	`option_index` integer NOT NULL,
	`option` text,
	`image` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`, `tier_index`, `option_index`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_product_tier_variation_options_load_idx` ON `marketplace_product_tier_variation_options` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_product_tier_variations` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`tier_index` integer NOT NULL,
	`name` text,
	`type` integer,
	`option_count` integer NOT NULL,
	`images` text,
	`properties` text,
	`summed_stocks` text,
	`display_indicators` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`, `tier_index`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_product_tier_variations_load_idx` ON `marketplace_product_tier_variations` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_products` (
	`shop_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`item_status` text,
	`status` integer,
	`item_type` integer,
	`reference_item_id` text,
	`title` text,
	`image` text,
	`brand` text,
	`brand_id` integer,
	`cat_id` integer,
	`condition` integer,
	`flag` integer,
	`currency` text,
	`description` text,
	`shop_location` text,
	`ctime` integer,
	`price` integer,
	`price_min` integer,
	`price_max` integer,
	`price_before_discount` integer,
	`price_min_before_discount` integer,
	`price_max_before_discount` integer,
	`price_divisor` integer NOT NULL,
	`price_major` real,
	`price_min_major` real,
	`price_max_major` real,
	`price_before_discount_major` real,
	`show_discount` integer,
	`raw_discount` real,
	`rating_star` real,
	`rating_count` text,
	`total_rating_count` integer,
	`cmt_count` integer,
	`liked_count` integer,
	`historical_sold` integer,
	`global_sold` integer,
	`stock` integer,
	`normal_stock` integer,
	`discount_stock` real,
	`estimated_days` real,
	`min_purchase_limit` real,
	`max_quantity` real,
	`is_adult` integer,
	`is_preview` integer,
	`is_unavailable` integer,
	`is_pre_order` integer,
	`is_free_shipping` integer,
	`is_hide_stock` integer,
	`item_has_video` integer,
	`can_use_wholesale` integer,
	`label_ids` text,
	`extra` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shop_id`, `item_id`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_products_load_idx` ON `marketplace_products` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `marketplace_shops` (
	`shopid` integer NOT NULL,
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
	`extra` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `shopid`)
);
--> statement-breakpoint
CREATE INDEX `marketplace_shops_load_idx` ON `marketplace_shops` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `pdf_results` (
	`id` integer NOT NULL,
	`scraper_id` integer,
	`scraping_run_id` integer,
	`scraper_name` text,
	`scraped_url` text,
	`status` text,
	`content_type` text NOT NULL,
	`content` text,
	`created_at` text,
	`updated_at` text,
	`extra` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `id`)
);
--> statement-breakpoint
CREATE INDEX `pdf_results_load_idx` ON `pdf_results` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE INDEX `pdf_results_run_idx` ON `pdf_results` (`scraping_run_id`);--> statement-breakpoint
CREATE TABLE `pipeline_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workflow_id` text NOT NULL,
	`pipeline` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`rows_by_table` text,
	`error` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pipeline_runs_workflow_id_uq` ON `pipeline_runs` (`workflow_id`);--> statement-breakpoint
CREATE INDEX `pipeline_runs_pipeline_idx` ON `pipeline_runs` (`pipeline`);--> statement-breakpoint
CREATE TABLE `raw_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pipeline` text NOT NULL,
	`kind` text NOT NULL,
	`endpoint` text NOT NULL,
	`request_key` text,
	`workflow_id` text,
	`scraping_run_id` integer,
	`received_at` text NOT NULL,
	`loaded_at` text NOT NULL,
	`body_sha256` text NOT NULL,
	`body_bytes` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `raw_responses_pipeline_idx` ON `raw_responses` (`pipeline`,`id`);--> statement-breakpoint
CREATE TABLE `result_content_fields` (
	`result_table` text NOT NULL,
	`result_id` integer NOT NULL,
	`path` text NOT NULL,
	`value_type` text NOT NULL,
	`value_text` text,
	`value_number` real,
	`value_bool` integer,
	`scraping_run_id` integer,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `result_table`, `result_id`, `path`)
);
--> statement-breakpoint
CREATE INDEX `result_content_fields_load_idx` ON `result_content_fields` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `result_content_items` (
	`result_table` text NOT NULL,
	`result_id` integer NOT NULL,
	`array_path` text NOT NULL,
	`list_index` integer NOT NULL,
	`item` text NOT NULL,
	`scraping_run_id` integer,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `result_table`, `result_id`, `array_path`, `list_index`)
);
--> statement-breakpoint
CREATE INDEX `result_content_items_load_idx` ON `result_content_items` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `run_records` (
	`id` integer NOT NULL,
	`scraping_run_id` integer,
	`user_id` integer,
	`scraper_id` integer,
	`scraper_name` text,
	`scrapped_url` text,
	`scraped_url` text,
	`status` text,
	`created_at` text,
	`updated_at` text,
	`scraper` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `id`)
);
--> statement-breakpoint
CREATE INDEX `run_records_load_idx` ON `run_records` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `scraper_results` (
	`id` integer NOT NULL,
	`scraper_id` integer,
	`scraping_run_id` integer,
	`scraper_name` text,
	`scraped_url` text,
	`status` text,
	`content_type` text NOT NULL,
	`content` text,
	`created_at` text,
	`updated_at` text,
	`extra` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `id`)
);
--> statement-breakpoint
CREATE INDEX `scraper_results_load_idx` ON `scraper_results` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE INDEX `scraper_results_run_idx` ON `scraper_results` (`scraping_run_id`);--> statement-breakpoint
CREATE TABLE `scrapers` (
	`id` integer NOT NULL,
	`name` text,
	`type` text,
	`urls` text,
	`scheduled` integer,
	`schedule` text,
	`schedule_explanation` text,
	`created_at` text,
	`updated_at` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `id`)
);
--> statement-breakpoint
CREATE INDEX `scrapers_load_idx` ON `scrapers` (`pipeline`,`load_id`);--> statement-breakpoint
CREATE TABLE `scraping_runs` (
	`id` integer NOT NULL,
	`scraper_id` integer,
	`status` text,
	`created_at` text,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`loaded_at` text NOT NULL,
	`row_hash` text NOT NULL,
	PRIMARY KEY(`pipeline`, `id`)
);
--> statement-breakpoint
CREATE INDEX `scraping_runs_load_idx` ON `scraping_runs` (`pipeline`,`load_id`);