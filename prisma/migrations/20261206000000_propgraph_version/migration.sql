-- Which propgraph opened this database: one row each time a version other than the
-- last one recorded opens it (the first start, every upgrade). The newest row says
-- what last opened the data; a start of an older version is refused (store/dataVersion.ts).
CREATE TABLE "propgraph_version" (
    "id" SERIAL NOT NULL,
    "version" TEXT NOT NULL,
    "previous_version" TEXT,
    "migrations" JSONB NOT NULL,
    "opened_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "propgraph_version_pkey" PRIMARY KEY ("id")
);
