// The catalogue the outside-in benchmarks load: datasets with three structured property
// values and a schemaMetadata of five fields each (issue 32's shape of a catalog entry).
export const PROPS = [
  ['io.bench.retention', 'number'],
  ['io.bench.tier', 'string'],
  ['io.bench.owner', 'string'],
];
const TIERS = ['gold', 'silver', 'bronze'];
export const propertyUrn = (qn) => `urn:li:structuredProperty:${qn}`;
export const datasetUrn = (i, prefix = 'bench') => `urn:li:dataset:(urn:li:dataPlatform:hive,${prefix}.t${String(i).padStart(7, '0')},PROD)`;

export function valuesFor(i) {
  return {
    properties: [
      { propertyUrn: propertyUrn(PROPS[0][0]), values: [{ double: (i % 365) + 1 }] },
      { propertyUrn: propertyUrn(PROPS[1][0]), values: [{ string: TIERS[i % 3] }] },
      { propertyUrn: propertyUrn(PROPS[2][0]), values: [{ string: `team-${i % 50}` }] },
    ],
  };
}

const COLUMNS = [
  ['id', 'bigint', 'NumberType'],
  ['customer_id', 'bigint', 'NumberType'],
  ['amount', 'decimal(12,2)', 'NumberType'],
  ['region', 'varchar(32)', 'StringType'],
  ['created_at', 'timestamp', 'TimeType'],
];

/** A schemaMetadata as DataHub's Hive ingestion writes it, five fields. */
export function schemaFor(i, prefix = 'bench') {
  return {
    schemaName: `${prefix}.t${String(i).padStart(7, '0')}`,
    platform: 'urn:li:dataPlatform:hive',
    version: 0,
    hash: '',
    platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
    fields: COLUMNS.map(([fieldPath, nativeDataType, type]) => ({
      fieldPath,
      nativeDataType,
      type: { type: { [`com.linkedin.schema.${type}`]: {} } },
      nullable: fieldPath !== 'id',
      recursive: false,
      isPartOfKey: fieldPath === 'id',
    })),
  };
}

export const entity = (i, prefix) => ({
  urn: datasetUrn(i, prefix),
  status: { value: { removed: false } },
  schemaMetadata: { value: schemaFor(i, prefix) },
  structuredProperties: { value: valuesFor(i) },
});
