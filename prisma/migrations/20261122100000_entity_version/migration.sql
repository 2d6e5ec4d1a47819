-- A counter bumped by every write to an entity: optimistic writers check it to know
-- that nothing changed the entity between their read and their write.
ALTER TABLE "entity" ADD COLUMN "version" BIGINT NOT NULL DEFAULT 0;
