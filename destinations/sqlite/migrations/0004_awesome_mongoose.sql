CREATE TABLE `url_lists` (
	`list_id` text NOT NULL,
	`chunk_index` integer NOT NULL,
	`urls` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`list_id`, `chunk_index`)
);
