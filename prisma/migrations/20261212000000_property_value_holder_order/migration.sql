-- A property's holders in urn order (issue #44). The cleanup after a hard delete or a
-- breaking version pages through them with a cursor, and a migration's job does the
-- same; with the property alone in the index, each page read and sorted every holder
-- left, so a cleanup of a million holders read about half a billion rows. Led by the
-- property, the new index answers everything the old one did.
CREATE INDEX "property_value_property_urn_entity_urn_idx" ON "property_value"("property_urn", "entity_urn");
DROP INDEX IF EXISTS "property_value_property_urn_idx";
