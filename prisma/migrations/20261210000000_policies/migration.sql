-- Policies (issue #40). A policy is the dataHubPolicyInfo aspect of a dataHubPolicy
-- entity, as DataHub stores it, so it is written, versioned, audited and backed up like
-- every aspect. This counter moves whenever a policy's latest version is written or
-- removed (by any path: the write path, a hard delete, a restore), so a cached copy of the
-- policies is checked with one cheap read. Only rows of that aspect fire the triggers:
-- other writes pay one comparison.
CREATE TABLE "policy_epoch" (
    "id" INTEGER NOT NULL,
    "epoch" BIGINT NOT NULL,

    CONSTRAINT "policy_epoch_pkey" PRIMARY KEY ("id")
);

INSERT INTO "policy_epoch" ("id", "epoch") VALUES (1, 0);

CREATE FUNCTION "bump_policy_epoch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "policy_epoch" SET "epoch" = "epoch" + 1 WHERE "id" = 1;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "policy_written"
AFTER INSERT OR UPDATE ON "aspect"
FOR EACH ROW WHEN (NEW."aspect" = 'dataHubPolicyInfo')
EXECUTE FUNCTION "bump_policy_epoch"();

CREATE TRIGGER "policy_removed"
AFTER DELETE ON "aspect"
FOR EACH ROW WHEN (OLD."aspect" = 'dataHubPolicyInfo')
EXECUTE FUNCTION "bump_policy_epoch"();

-- The groups a person's sign-in gave them (the OIDC groups claim), kept with their session
-- and personal tokens: policies grant to groups, and every request of the person carries
-- them. Refreshed at each sign-in.
ALTER TABLE "access_token" ADD COLUMN "groups" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
