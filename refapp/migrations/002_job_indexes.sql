-- no-transaction
-- CREATE INDEX CONCURRENTLY cannot run inside a transaction block, so migrate.js runs this
-- file statement by statement in autocommit mode. Writers are not blocked while these build.
-- If a build fails half-way PostgreSQL leaves an INVALID index behind that IF NOT EXISTS
-- would then skip; migrate.js drops such an invalid index (concurrently) before retrying it.
--
-- Recovery candidates are read per domain with
--     WHERE status IN ('PROCESSING', 'QUEUED') [AND type IN (...)] AND "updatedAt" < $cutoff
-- Job tables are dominated by COMPLETED/FAILED history, so leading with "status" makes that
-- read touch only the few in-flight rows; "updatedAt" last gives the time range. Where a
-- domain filters by "type" the type sits between them: each (status, type) pair is then one
-- contiguous "updatedAt" range (the planner expands both IN lists into index scan keys).
--
-- Write cost, stated on purpose: "updatedAt" is in every one of these status indexes, and the
-- app bumps "updatedAt" on every progress write. An UPDATE that changes an indexed column can
-- never be a HOT (heap-only) update, so each progress write costs one new heap tuple plus one
-- new entry in EVERY index of the table (primary key, foreign-key index and this one: 3 index
-- inserts per progress write here), and leaves as many dead entries for vacuum to clean up.
-- Without an index on "updatedAt" the same write could be HOT (no index insert at all, when the
-- page has free space). Apps that report progress very often should throttle progress writes
-- rather than drop the index: without it the recovery read is a sequential scan of the whole
-- job history every 5 minutes.

CREATE INDEX CONCURRENTLY IF NOT EXISTS "SlideJob_status_type_updatedAt_idx"
    ON "SlideJob" ("status", "type", "updatedAt");

CREATE INDEX CONCURRENTLY IF NOT EXISTS "VideoJob_status_type_updatedAt_idx"
    ON "VideoJob" ("status", "type", "updatedAt");

CREATE INDEX CONCURRENTLY IF NOT EXISTS "DocumentJob_status_type_updatedAt_idx"
    ON "DocumentJob" ("status", "type", "updatedAt");

CREATE INDEX CONCURRENTLY IF NOT EXISTS "ImageJob_status_updatedAt_idx"
    ON "ImageJob" ("status", "updatedAt");

CREATE INDEX CONCURRENTLY IF NOT EXISTS "NarrationJob_status_updatedAt_idx"
    ON "NarrationJob" ("status", "updatedAt");

-- Foreign-key side indexes the app (and a REQUEUE restore query) join on.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "SlideJob_slideId_idx" ON "SlideJob" ("slideId");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "VideoJob_videoId_idx" ON "VideoJob" ("videoId");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "DocumentJob_documentId_idx" ON "DocumentJob" ("documentId");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "ImageJob_imageId_idx" ON "ImageJob" ("imageId");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "NarrationJob_narrationId_idx" ON "NarrationJob" ("narrationId");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "Track_videoId_position_idx" ON "Track" ("videoId", "position");
