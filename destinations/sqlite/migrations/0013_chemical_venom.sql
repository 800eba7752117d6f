ALTER TABLE `pipeline_runs` ADD `seen_by_table` text;--> statement-breakpoint
ALTER TABLE `raw_responses` ADD `rows_seen` text;