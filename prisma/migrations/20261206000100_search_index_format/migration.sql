-- The search index formats this database's change log feeds (search/indexFormat.ts):
-- whether a format's indexes are built, and up to when they reflect the changes marked
-- indexed. Versions with different formats keep their own indexes; when one takes the
-- indexer over from another, it re-reads the changes the other marked since this time.
CREATE TABLE "search_index_format" (
    "format" TEXT NOT NULL,
    "marks_seen_until" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "built_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_index_format_pkey" PRIMARY KEY ("format")
);
