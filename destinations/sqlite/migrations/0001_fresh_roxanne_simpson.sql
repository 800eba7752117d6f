CREATE TABLE `export_watermarks` (
	`pipeline` text NOT NULL,
	`table_name` text NOT NULL,
	`last_load_id` integer NOT NULL,
	`exported_at` text NOT NULL,
	PRIMARY KEY(`pipeline`, `table_name`)
);
