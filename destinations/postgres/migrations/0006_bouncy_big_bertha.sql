ALTER TABLE "raw_responses" ADD COLUMN "body_ref" bigint;--> statement-breakpoint
CREATE INDEX "raw_responses_body_sha256_idx" ON "raw_responses" USING btree ("body_sha256");