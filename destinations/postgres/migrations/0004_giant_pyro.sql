CREATE TABLE "url_lists" (
	"list_id" text NOT NULL,
	"chunk_index" integer NOT NULL,
	"urls" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "url_lists_list_id_chunk_index_pk" PRIMARY KEY("list_id","chunk_index")
);
