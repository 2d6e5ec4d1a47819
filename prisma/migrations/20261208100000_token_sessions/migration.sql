-- Console sessions opened with an access token (issue #41): the console trades a pasted
-- token for a session token of its own, held in an HttpOnly cookie. `parent_id` is the
-- token it was opened with: the session acts as that token's principal, never above its
-- scope, and ends when it is revoked or expires. Machine tokens act as
-- urn:li:corpuser:__service_<name> from this release on (issue #39); nothing stored changes.
ALTER TABLE "access_token" ADD COLUMN "parent_id" TEXT;

CREATE INDEX "access_token_parent_id_idx" ON "access_token"("parent_id");
