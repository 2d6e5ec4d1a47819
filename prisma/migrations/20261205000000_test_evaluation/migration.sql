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

-- The latest testResults of every entity as two lists of test URNs: the compliance
-- report's counts, a test's holders when it is deleted. Kept by statement triggers on the
-- aspect table, so every writer (the evaluator, push, a hand-written aspect, a delete,
-- an entity's delete cascading to its aspects) keeps it exact in its own transaction,
-- set-based: a batch of results costs one upsert per entity, not a call per row.
CREATE TABLE "test_result" (
    "entity_urn" TEXT NOT NULL,
    "passing" TEXT[] NOT NULL,
    "failing" TEXT[] NOT NULL,

    CONSTRAINT "test_result_pkey" PRIMARY KEY ("entity_urn")
);
CREATE INDEX "test_result_passing_idx" ON "test_result" USING GIN ("passing");
CREATE INDEX "test_result_failing_idx" ON "test_result" USING GIN ("failing");

-- The test URNs of one list of a testResults aspect (passing or failing).
CREATE FUNCTION "test_urns_of"(p_results JSONB, p_list TEXT) RETURNS TEXT[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(r->>'test' ORDER BY r->>'test') FILTER (WHERE r->>'test' IS NOT NULL), '{}')
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_results->p_list) = 'array' THEN p_results->p_list ELSE '[]'::jsonb END) r
$$;

CREATE FUNCTION "index_written_test_results"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "test_result" ("entity_urn", "passing", "failing")
  SELECT w."urn", "test_urns_of"(w."metadata", 'passing'), "test_urns_of"(w."metadata", 'failing')
  FROM "written" w WHERE w."aspect" = 'testResults' AND w."version" = 0
  ON CONFLICT ("entity_urn") DO UPDATE SET "passing" = EXCLUDED."passing", "failing" = EXCLUDED."failing";
  RETURN NULL;
END;
$$;

CREATE FUNCTION "index_deleted_test_results"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "test_result" t USING "deleted" d WHERE d."aspect" = 'testResults' AND d."version" = 0 AND t."entity_urn" = d."urn";
  RETURN NULL;
END;
$$;

-- A trigger with transition tables takes one event each.
CREATE TRIGGER "aspect_test_results_inserted" AFTER INSERT ON "aspect"
REFERENCING NEW TABLE AS "written" FOR EACH STATEMENT EXECUTE FUNCTION "index_written_test_results"();
CREATE TRIGGER "aspect_test_results_updated" AFTER UPDATE ON "aspect"
REFERENCING NEW TABLE AS "written" FOR EACH STATEMENT EXECUTE FUNCTION "index_written_test_results"();
CREATE TRIGGER "aspect_test_results_deleted" AFTER DELETE ON "aspect"
REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "index_deleted_test_results"();

INSERT INTO "test_result" ("entity_urn", "passing", "failing")
SELECT a."urn", "test_urns_of"(a."metadata", 'passing'), "test_urns_of"(a."metadata", 'failing')
FROM "aspect" a WHERE a."aspect" = 'testResults' AND a."version" = 0;

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
