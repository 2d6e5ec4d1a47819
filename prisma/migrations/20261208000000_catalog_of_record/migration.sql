-- The catalog of record (issue #39).
--
-- lineage_started_on: when the property's current lineage began: its definition first
-- written, again when it is re-created after a hard delete or takes a breaking `version`.
-- History returns a version's values of the property only when the version was written
-- since then (docs/contract.md, "Which values a read may return"). Existing properties:
-- the first write of the definition with their current version string (a hard delete
-- removed every version of an earlier incarnation's definition).
ALTER TABLE "structured_property" ADD COLUMN "lineage_started_on" TIMESTAMPTZ(3) NOT NULL DEFAULT now();
UPDATE "structured_property" sp SET "lineage_started_on" = COALESCE((
  SELECT min(a."created_on") FROM "aspect" a
  WHERE a."urn" = sp."urn" AND a."aspect" = 'propertyDefinition'
    AND COALESCE(a."metadata"->>'version', '') = COALESCE(sp."version", '')), sp."lineage_started_on");

-- A migration in progress: values still under its fromGeneration are read through its
-- rules until the job has rewritten them (domain/valueMigration.ts).
ALTER TABLE "structured_property" ADD COLUMN "migration" JSONB;

CREATE OR REPLACE VIEW "registered_property" AS
SELECT sp."urn", sp."qualified_name", sp."search_field", sp."value_type", sp."version", sp."generation", sp."removed",
       d."metadata" AS "definition", e."version" AS "entity_version", sp."migration", sp."lineage_started_on"
FROM "structured_property" sp
JOIN "aspect" d ON d."urn" = sp."urn" AND d."aspect" = 'propertyDefinition' AND d."version" = 0
JOIN "entity" e ON e."urn" = sp."urn";

-- What happened to a property or a metadata test as a whole (created, changed, a new
-- version, migrated, soft deleted, restored, hard deleted), with who and when: written
-- in the same statement as the change, kept after a hard delete (without values).
CREATE TABLE "lifecycle_event" (
    "id" BIGSERIAL NOT NULL,
    "urn" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "via" TEXT,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "detail" JSONB,
    CONSTRAINT "lifecycle_event_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "lifecycle_event_urn_created_on_idx" ON "lifecycle_event"("urn", "created_on");

-- The page read carries a value row's migration (in `meta`) when the row is under an
-- older generation than its property's, so that readers see migrating values through
-- the migration's rules (domain/writes/valueVisibility.ts); null otherwise.
CREATE OR REPLACE FUNCTION "read_entity_page"(p_urns TEXT[], p_parents TEXT[], p_wants BOOLEAN[], p_names TEXT[])
RETURNS TABLE ("kind" TEXT, "urn" TEXT, "name" TEXT, "body" JSONB, "meta" JSONB, "generation" TEXT, "current_generation" TEXT, "removed" BOOLEAN)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY
    SELECT 'e'::text, e."urn", NULL::text, NULL::jsonb, NULL::jsonb, NULL::text, NULL::text, NULL::boolean
      FROM "entity" e WHERE e."urn" = ANY(p_urns) OR e."urn" = ANY(p_parents)
    UNION ALL
    SELECT 'a'::text, a."urn", a."aspect", a."metadata", a."system_metadata", NULL::text, NULL::text, NULL::boolean
      FROM "aspect" a WHERE a."urn" = ANY(p_urns) AND a."version" = 0 AND a."aspect" = ANY(p_names)
    UNION ALL
    SELECT 'v'::text, pv."entity_urn", pv."property_urn", pv."values",
           CASE WHEN pv."generation" <> sp."generation" THEN sp."migration" END, pv."generation"::text, sp."generation"::text, coalesce(sp."removed", false)
      FROM "property_value" pv LEFT JOIN "structured_property" sp ON sp."urn" = pv."property_urn"
      WHERE pv."entity_urn" = ANY(ARRAY(SELECT w.urn FROM unnest(p_urns, p_wants) AS w(urn, wants) WHERE w.wants));
END;
$$;
