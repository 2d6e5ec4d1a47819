// The catalogue the outside-in benchmark loads: datasets with three structured property values each.
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

export const entity = (i, prefix) => ({ urn: datasetUrn(i, prefix), status: { value: { removed: false } }, structuredProperties: { value: valuesFor(i) } });
