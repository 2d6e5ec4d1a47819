-- A counter that moves whenever the structured property registry changes (any insert,
-- update or delete, by any path). Searches cache the registry and check this counter,
-- in parallel with the search engine, instead of reading the registry every time.
CREATE TABLE "registry_epoch" (
    "id" INTEGER NOT NULL,
    "epoch" BIGINT NOT NULL,

    CONSTRAINT "registry_epoch_pkey" PRIMARY KEY ("id")
);

INSERT INTO "registry_epoch" ("id", "epoch") VALUES (1, 0);

CREATE FUNCTION "bump_registry_epoch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "registry_epoch" SET "epoch" = "epoch" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "structured_property_changed"
AFTER INSERT OR UPDATE OR DELETE ON "structured_property"
FOR EACH STATEMENT EXECUTE FUNCTION "bump_registry_epoch"();
