-- The history of a widely held property is read from the newest writes back, a bounded
-- number per page (issue #46 item 2; store/aspectVersions.ts): an index in that order.
CREATE INDEX "aspect_time_idx" ON "aspect" ("aspect", "created_on", "urn");
