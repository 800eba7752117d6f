ALTER TABLE `export_watermarks` ADD `last_run` text;--> statement-breakpoint
ALTER TABLE `export_watermarks` ADD `last_file` text;--> statement-breakpoint
ALTER TABLE `export_watermarks` ADD `last_rows` integer;--> statement-breakpoint
ALTER TABLE `pipeline_runs` ADD `export_status` text;--> statement-breakpoint
ALTER TABLE `pipeline_runs` ADD `export_error` text;