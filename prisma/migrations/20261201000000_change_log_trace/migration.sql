-- The trace context (a W3C traceparent) of the request that wrote each change, when
-- tracing is on: the indexer links its work on the change to that request's trace.
ALTER TABLE "change_log" ADD COLUMN "trace_parent" TEXT;
