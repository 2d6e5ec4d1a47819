/**
 * The index format: what an index built by this version holds, as a short hash of the
 * index settings (settings.ts) and of the documents' shape (DOCUMENT_VERSION, bumped by
 * hand when documents.ts changes what a document holds). It is part of every index's
 * name, so each format has indexes of its own: a version whose format differs builds
 * new ones from the database on its first start (a background job, with progress in the
 * jobs API) and never writes into another version's, which keeps serving that version's
 * replicas during a rolling upgrade (docs/operations.md, "Upgrading").
 */
import { createHash } from 'node:crypto';
import { INDEX_SETTINGS } from './settings.js';

/** Bump when documents.ts changes the fields a document holds or what they mean (2: the sort keys `_ct`, `_mt`, `_nm`). */
export const DOCUMENT_VERSION = 2;

export const INDEX_FORMAT: string = createHash('sha256')
  .update(JSON.stringify({ settings: INDEX_SETTINGS, documents: DOCUMENT_VERSION }))
  .digest('hex')
  .slice(0, 8);
