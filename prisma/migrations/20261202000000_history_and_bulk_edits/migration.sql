-- A data steward's day (issue #27).
--
-- Each aspect version records the interface it came through (rest-v2, rest-v3, restli,
-- graphql, cli, console, system), beside its actor (created_by) and time (created_on):
-- the audit stamp of the history. Versions written before this migration have none.
ALTER TABLE "aspect" ADD COLUMN "created_via" TEXT;

-- The versions of structuredProperties aspects that name a property, found by JSON
-- containment: a property's value history, and the hard delete's scrubbing of it.
CREATE INDEX "aspect_structured_properties_idx" ON "aspect" USING GIN (("metadata"->'properties') jsonb_path_ops)
  WHERE "aspect" = 'structuredProperties';

-- What a job did, for jobs that report more than progress (a bulk edit: the entities it
-- changed, left as they were, and could not change, with the reason).
ALTER TABLE "job" ADD COLUMN "result" JSONB;
