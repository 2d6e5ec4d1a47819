/**
 * The definition and dataset files written as DataHub's documentation shows them
 * (docs/contract.md §9: the snake_case keys, short type and entity type names, plain scalar
 * allowed values, `structured_properties` maps of qualified name to scalar or list).
 */
export const SEED_PROPERTIES_YAML = `- id: io.acryl.privacy.retentionTime
  # - urn: urn:li:structuredProperty:io.acryl.privacy.retentionTime # optional if id is provided
  qualified_name: io.acryl.privacy.retentionTime # required if urn is provided
  type: number
  cardinality: MULTIPLE
  display_name: Retention Time
  entity_types:
    - dataset # or urn:li:entityType:datahub.dataset
    - dataFlow
  description: "Retention Time is used to figure out how long to retain records in a dataset"
  allowed_values:
    - value: 30
      description: 30 days, usually reserved for datasets that are ephemeral and contain pii
    - value: 90
      description: Use this for datasets that drive monthly reporting but contain pii
    - value: 365
      description: Use this for non-sensitive data that can be retained for longer
- id: io.acryl.dataManagement.replicationSLA
  type: number
  display_name: Replication SLA
  description: "SLA for how long data can be delayed before replicating to the destination cluster"
  entity_types:
    - dataset
- id: io.acryl.dataManagement.deprecationDate
  type: date
  display_name: Deprecation Date
  entity_types:
    - dataset
    - dataFlow
    - dataJob
    - schemaField
`;

export const SEED_PROPERTY_URNS = [
  'urn:li:structuredProperty:io.acryl.privacy.retentionTime',
  'urn:li:structuredProperty:io.acryl.dataManagement.replicationSLA',
  'urn:li:structuredProperty:io.acryl.dataManagement.deprecationDate',
];

export const SEED_DATASET_YAML = `- id: user.clicks
  platform: hive
  # urn: urn:li:dataset:(urn:li:dataPlatform:hive,user.clicks,PROD) # use urn instead of id and platform
  schema:
    fields:
      - id: ip
        structured_properties:
          io.acryl.dataManagement.deprecationDate: "2023-01-01"
  structured_properties:
    io.acryl.dataManagement.replicationSLA: 90
    io.acryl.privacy.retentionTime: [30, 90]
`;

export const SEED_DATASET_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,user.clicks,PROD)';
