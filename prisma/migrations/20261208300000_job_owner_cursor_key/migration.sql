-- Jobs (issue #46 items 3, 6 and 14; issue #43 item 4):
-- owner: the principal who asked for the job (bulk edits, test runs), counted against the
--   per-principal quota; null for propgraph's own jobs.
-- cursor: how far a running job got, apart from its inputs (payload) and what it did
--   (result); the evaluation job kept it inside its payload.
-- coalesce_key: a job asked for again while one with the same key waits joins it (one
--   index build per format; changed tests merged; the same test run asked twice).
ALTER TABLE "job" ADD COLUMN "owner" TEXT;
ALTER TABLE "job" ADD COLUMN "cursor" JSONB;
ALTER TABLE "job" ADD COLUMN "coalesce_key" TEXT;

UPDATE "job" SET "cursor" = "payload"->'cursor', "payload" = "payload" - 'cursor' WHERE "payload" ? 'cursor';
UPDATE "job" SET "coalesce_key" = 'search-index-build:' || coalesce("payload"->>'format', '')
  WHERE "kind" = 'search-index-build' AND "status" IN ('pending', 'running');
UPDATE "job" SET "coalesce_key" = 'evaluate-tests:changed'
  WHERE "kind" = 'evaluate-tests' AND "status" = 'pending' AND "payload"->>'trigger' = 'changed';

CREATE INDEX "job_coalesce_key_idx" ON "job" ("coalesce_key");
CREATE INDEX "job_owner_idx" ON "job" ("owner");
CREATE INDEX "job_finished_on_idx" ON "job" ("finished_on");
