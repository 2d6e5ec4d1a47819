-- Metadata tests kept current across the catalog (docs/metadata-tests.md, "Continuous
-- evaluation"): a second consumer of the change log, the results indexed relationally
-- for the compliance report, and a small daily snapshot for its trend.

-- Which transaction wrote each change. A consumer that records a position in the log
-- cannot use the id alone: ids are taken when a row is inserted, so a transaction that
-- took a lower id may commit after higher ones were read. Every transaction with an id
-- below the oldest one still running has finished, so rows below that horizon, read in
-- (xid, id) order, never gain a predecessor. Rows written before this column existed
-- have none: the first evaluation after an upgrade covers them (a full run).
ALTER TABLE "change_log" ADD COLUMN "xid" BIGINT;
ALTER TABLE "change_log" ALTER COLUMN "xid" SET DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX "change_log_xid_id_idx" ON "change_log"("xid", "id");

-- How far each change-log consumer other than the indexer got, as the (xid, id) of the
-- last change it handled. The indexer prunes only rows every consumer has passed.
CREATE TABLE "change_log_consumer" (
    "name" TEXT NOT NULL,
    "xid" BIGINT NOT NULL,
    "id" BIGINT NOT NULL,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_log_consumer_pkey" PRIMARY KEY ("name")
);

-- The latest testResults of every entity, one row per (test, entity): the compliance
-- report's counts, a test's holders when it is deleted. Kept by triggers on the aspect
-- table, so every writer (the evaluator, push, a hand-written aspect, a hard delete)
-- keeps it exact in its own transaction.
CREATE TABLE "test_result" (
    "test_urn" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "entity_urn" TEXT NOT NULL,

    CONSTRAINT "test_result_pkey" PRIMARY KEY ("test_urn", "outcome", "entity_urn")
);
CREATE INDEX "test_result_entity_urn_idx" ON "test_result"("entity_urn");
ALTER TABLE "test_result" ADD CONSTRAINT "test_result_entity_urn_fkey" FOREIGN KEY ("entity_urn") REFERENCES "entity"("urn") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION "index_test_results"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM "test_result" WHERE "entity_urn" = OLD."urn";
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "test_result" ("test_urn", "outcome", "entity_urn")
    SELECT r->>'test', 'SUCCESS', NEW."urn" FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW."metadata"->'passing') = 'array' THEN NEW."metadata"->'passing' ELSE '[]'::jsonb END) r
    WHERE r->>'test' IS NOT NULL
    UNION
    SELECT r->>'test', 'FAILURE', NEW."urn" FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW."metadata"->'failing') = 'array' THEN NEW."metadata"->'failing' ELSE '[]'::jsonb END) r
    WHERE r->>'test' IS NOT NULL
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END;
$$;

-- Only the latest version (0) of testResults: the WHEN clauses keep every other write
-- from calling the function at all.
CREATE TRIGGER "aspect_test_results_written"
AFTER INSERT OR UPDATE ON "aspect"
FOR EACH ROW WHEN (NEW."aspect" = 'testResults' AND NEW."version" = 0)
EXECUTE FUNCTION "index_test_results"();

CREATE TRIGGER "aspect_test_results_deleted"
AFTER DELETE ON "aspect"
FOR EACH ROW WHEN (OLD."aspect" = 'testResults' AND OLD."version" = 0)
EXECUTE FUNCTION "index_test_results"();

INSERT INTO "test_result" ("test_urn", "outcome", "entity_urn")
SELECT r->>'test', 'SUCCESS', a."urn" FROM "aspect" a, jsonb_array_elements(CASE WHEN jsonb_typeof(a."metadata"->'passing') = 'array' THEN a."metadata"->'passing' ELSE '[]'::jsonb END) r
WHERE a."aspect" = 'testResults' AND a."version" = 0 AND r->>'test' IS NOT NULL
UNION
SELECT r->>'test', 'FAILURE', a."urn" FROM "aspect" a, jsonb_array_elements(CASE WHEN jsonb_typeof(a."metadata"->'failing') = 'array' THEN a."metadata"->'failing' ELSE '[]'::jsonb END) r
WHERE a."aspect" = 'testResults' AND a."version" = 0 AND r->>'test' IS NOT NULL
ON CONFLICT DO NOTHING;

-- The compliance trend: each test's counts, one row per day, written by the evaluator
-- (at most once a minute while results change) and read by the report.
CREATE TABLE "test_result_daily" (
    "test_urn" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "passing" INTEGER NOT NULL,
    "failing" INTEGER NOT NULL,
    "not_applicable" INTEGER NOT NULL,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "test_result_daily_pkey" PRIMARY KEY ("test_urn", "day")
);
