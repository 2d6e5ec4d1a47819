-- CreateTable
CREATE TABLE "entity" (
    "urn" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "entity_pkey" PRIMARY KEY ("urn")
);

-- CreateTable
CREATE TABLE "aspect" (
    "urn" TEXT NOT NULL,
    "aspect" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "metadata" JSONB NOT NULL,
    "system_metadata" JSONB,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,

    CONSTRAINT "aspect_pkey" PRIMARY KEY ("urn","aspect","version")
);

-- CreateTable
CREATE TABLE "change_log" (
    "id" BIGSERIAL NOT NULL,
    "urn" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "aspect" TEXT,
    "change_type" TEXT NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "indexed_on" TIMESTAMPTZ(3),

    CONSTRAINT "change_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "structured_property" (
    "urn" TEXT NOT NULL,
    "qualified_name" TEXT NOT NULL,
    "search_field" TEXT NOT NULL,
    "value_type" TEXT NOT NULL,
    "version" TEXT,
    "generation" BIGINT NOT NULL,
    "removed" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "structured_property_pkey" PRIMARY KEY ("urn")
);

-- CreateTable
CREATE TABLE "property_value" (
    "entity_urn" TEXT NOT NULL,
    "property_urn" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "generation" BIGINT NOT NULL,
    "values" JSONB NOT NULL,

    CONSTRAINT "property_value_pkey" PRIMARY KEY ("entity_urn","property_urn")
);

-- CreateTable
CREATE TABLE "job" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_by" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "total" INTEGER,
    "done" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_on" TIMESTAMPTZ(3),

    CONSTRAINT "job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_lease" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "worker_lease_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "entity_entity_type_urn_idx" ON "entity"("entity_type", "urn");

-- CreateIndex
CREATE UNIQUE INDEX "structured_property_search_field_key" ON "structured_property"("search_field");

-- CreateIndex
CREATE INDEX "property_value_property_urn_idx" ON "property_value"("property_urn");

-- CreateIndex
CREATE INDEX "job_status_run_after_idx" ON "job"("status", "run_after");

-- AddForeignKey
ALTER TABLE "aspect" ADD CONSTRAINT "aspect_urn_fkey" FOREIGN KEY ("urn") REFERENCES "entity"("urn") ON DELETE CASCADE ON UPDATE CASCADE;

-- Not expressible in schema.prisma: the indexer scans only the pending tail of the log.
CREATE INDEX "change_log_pending_idx" ON "change_log"("id") WHERE "indexed_on" IS NULL;

-- Generations are drawn from one sequence so a re-created property never reuses one.
CREATE SEQUENCE "structured_property_generation_seq";
