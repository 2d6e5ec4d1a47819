-- Releases before 0.2.0 claim every runnable job, whatever its kind, and fail the kinds
-- they cannot run ("no handler"), each time pushing the job back by a longer delay: in a
-- rolling upgrade the old replica took the new one's jobs that way (an index build could
-- wait many minutes). Their workers name themselves 'worker-<uuid>'; later ones name
-- themselves 'worker:<uuid>' and claim only the kinds they run. A claim by an old worker
-- of a kind it cannot run is skipped here, leaving the job as it was for the new worker.
CREATE FUNCTION "job_claim_by_kind"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."locked_by" LIKE 'worker-%' AND NEW."locked_by" IS DISTINCT FROM OLD."locked_by"
     AND NEW."kind" NOT IN ('cleanup-property-values', 'reindex') THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "job_claim_by_kind" BEFORE UPDATE ON "job" FOR EACH ROW EXECUTE FUNCTION "job_claim_by_kind"();
