import { parseUrn } from '../../domain/urn.js';
import type { SchemaMetadataResolvers } from '../generated/resolvers-types.js';

const text = (v: unknown) => (typeof v === 'string' ? v : null);
const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The schemaMetadata aspect as DataHub's SchemaMetadata: what was stored, DataHub's defaults where nothing was. */
export const SchemaMetadata: SchemaMetadataResolvers = {
  name: (m) => text(m.stored.schemaName) ?? parseUrn(m.datasetUrn).parts[1] ?? '',
  platformUrn: (m) => text(m.stored.platform) ?? parseUrn(m.datasetUrn).parts[0] ?? '',
  version: (m) => number(m.stored.version) ?? 0,
  hash: (m) => text(m.stored.hash) ?? '',
  cluster: (m) => text(m.stored.cluster),
  aspectVersion: () => 0,
  datasetUrn: (m) => m.datasetUrn,
  createdAt: (m) => number((m.stored.created as { time?: unknown } | undefined)?.time),
  primaryKeys: (m) => (Array.isArray(m.stored.primaryKeys) ? m.stored.primaryKeys.filter((k): k is string => typeof k === 'string') : null),
  foreignKeys: () => [],
  platformSchema: (m) => {
    const holder = m.stored.platformSchema && typeof m.stored.platformSchema === 'object' ? (m.stored.platformSchema as Record<string, Record<string, unknown>>) : null;
    const inner = holder ? Object.values(holder)[0] : undefined;
    if (!inner || typeof inner !== 'object') return null;
    if (typeof inner.keySchema === 'string' || typeof inner.valueSchema === 'string') return { __typename: 'KeyValueSchema', keySchema: text(inner.keySchema) ?? '', valueSchema: text(inner.valueSchema) ?? '' };
    return { __typename: 'TableSchema', schema: text(inner.tableSchema) ?? text(inner.rawSchema) ?? text(inner.documentSchema) ?? '' };
  },
};
