-- The property registry as its readers see it: each registered property with its
-- latest propertyDefinition aspect and the write counter of its entity (which the
-- write path's guard compares). The one home of this join: the registry reads
-- (store/propertyRegistry.ts) and the write path's loader (store/writeLoad.ts) select
-- from it. PostgreSQL inlines the view, so a lookup by urn or search_field is planned
-- as the join itself, by key.
CREATE VIEW "registered_property" AS
SELECT sp."urn", sp."qualified_name", sp."search_field", sp."value_type", sp."version", sp."generation", sp."removed",
       d."metadata" AS "definition", e."version" AS "entity_version"
FROM "structured_property" sp
JOIN "aspect" d ON d."urn" = sp."urn" AND d."aspect" = 'propertyDefinition' AND d."version" = 0
JOIN "entity" e ON e."urn" = sp."urn";
