ALTER TABLE `raw_responses` ADD `body_ref` integer;--> statement-breakpoint
CREATE INDEX `raw_responses_body_sha256_idx` ON `raw_responses` (`body_sha256`);