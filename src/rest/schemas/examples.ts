/**
 * Example values shared by the route documentation: one coherent story (a retention
 * time property on a Hive dataset, a test that it is set) so that running the examples
 * in Swagger UI in order works: define the property, create the dataset, set the value.
 */
export const PROPERTY_URN = 'urn:li:structuredProperty:io.acryl.privacy.retentionTime';
export const DATASET_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
export const OTHER_DATASET_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.items,PROD)';
export const TEST_URN = 'urn:li:test:retention-is-set';

export const PROPERTY_DEFINITION = {
  qualifiedName: 'io.acryl.privacy.retentionTime',
  displayName: 'Retention Time',
  valueType: 'urn:li:dataType:svc.number',
  cardinality: 'MULTIPLE',
  entityTypes: ['urn:li:entityType:svc.dataset'],
  allowedValues: [
    { value: { double: 30 }, description: '30 days, for ephemeral data' },
    { value: { double: 60 } },
  ],
};

export const STRUCTURED_PROPERTIES = { properties: [{ propertyUrn: PROPERTY_URN, values: [{ double: 60 }] }] };

export const TEST_INFO = {
  name: 'Retention is set',
  category: 'Governance',
  definition: {
    type: 'JSON',
    json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: `structuredProperties.${PROPERTY_URN}`, operator: 'exists' }] }),
  },
};

export const DATASET_KEY = { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' };

export const PATCH_SET_VALUE = {
  patch: [{ op: 'add', path: `/properties/${PROPERTY_URN}`, value: { propertyUrn: PROPERTY_URN, values: [{ double: 30 }] } }],
  arrayPrimaryKeys: { properties: ['propertyUrn'] },
};

export const PATCH_REMOVE_VALUE = {
  patch: [{ op: 'remove', path: `/properties/${PROPERTY_URN}` }],
  arrayPrimaryKeys: { properties: ['propertyUrn'] },
};

export const SYSTEM_METADATA = { lastObserved: 1795303602487, runId: 'no-run-id-provided', version: '1' };

export const JOB_SUMMARY = {
  id: '1',
  kind: 'cleanup-property-values',
  status: 'running',
  propertyUrn: PROPERTY_URN,
  owner: null,
  attempts: 1,
  total: 1200,
  done: 800,
  remaining: 400,
  lastError: null,
  counts: null,
  createdOn: '2026-01-12T09:30:00.000Z',
  finishedOn: null,
};

export const JOB = { ...JOB_SUMMARY, payload: { propertyUrn: PROPERTY_URN }, result: null };

export const TOKEN_METADATA = {
  id: '44ebdaeb-2bb4-4365-8bd2-7aca7a820430',
  name: 'loader',
  description: 'nightly load',
  scope: 'write',
  createdAt: 1767000000000,
  createdBy: 'urn:li:corpuser:__service_root',
  expiresAt: 1893456000000,
  revoked: false,
  lastUsedAt: null,
  type: 'machine',
  owner: null,
  principal: 'urn:li:corpuser:__service_loader',
  parentId: null,
};

export const INVALID_URN = { error: 'Invalid urn!: urn:li:x', message: 'Invalid urn!: urn:li:x (missing entity type)' };
