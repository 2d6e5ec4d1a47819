-- Tokens of people signed in through OpenID Connect (issue #30). `kind` is 'machine'
-- (issued by an admin, acting as urn:li:corpuser:<name>, as every token did before),
-- 'personal' (issued by a person for their own use) or 'session' (issued at sign-in to
-- the console or by `propgraph login`); `owner` is the person's urn for the last two,
-- who is then the actor on everything the token writes.
ALTER TABLE "access_token" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'machine';
ALTER TABLE "access_token" ADD COLUMN "owner" TEXT;

CREATE INDEX "access_token_owner_idx" ON "access_token"("owner");
