/** All resolvers, one file per GraphQL type, merged for buildSubgraphSchema. */
import type { Resolvers } from '../generated/resolvers-types.js';
import { AccessTokenMetadata } from './AccessTokenMetadata.js';
import { AuthenticatedUser } from './AuthenticatedUser.js';
import { BulkEditChange } from './BulkEditChange.js';
import { ValueImportResult } from './ValueImportResult.js';
import { BulkEditResult } from './BulkEditResult.js';
import { CorpUser } from './CorpUser.js';
import { DataPlatform } from './DataPlatform.js';
import { DataTypeEntity } from './DataTypeEntity.js';
import { DataTypeInfo } from './DataTypeInfo.js';
import { Dataset } from './Dataset.js';
import { Entity, resolveEntityType } from './Entity.js';
import { EntityTypeEntity } from './EntityTypeEntity.js';
import { EntityTypeInfo } from './EntityTypeInfo.js';
import { GenericEntity } from './GenericEntity.js';
import { Job } from './Job.js';
import { Long } from './Long.js';
import { MetadataAttribution } from './MetadataAttribution.js';
import { Mutation } from './Mutation.js';
import { NumberValue } from './NumberValue.js';
import { PropertyValue } from './PropertyValue.js';
import { StringValue } from './StringValue.js';
import { Query } from './Query.js';
import { ResolvedAuditStamp } from './ResolvedAuditStamp.js';
import { SchemaField } from './SchemaField.js';
import { SchemaFieldEntity } from './SchemaFieldEntity.js';
import { StructuredProperties } from './StructuredProperties.js';
import { StructuredPropertiesEntry } from './StructuredPropertiesEntry.js';
import { StructuredPropertyDefinition } from './StructuredPropertyDefinition.js';
import { StructuredPropertyDefinitionRevision } from './StructuredPropertyDefinitionRevision.js';
import { StructuredPropertyEntity } from './StructuredPropertyEntity.js';
import { Test } from './Test.js';
import { TestCompliance } from './TestCompliance.js';
import { TestResult } from './TestResult.js';
import { TypeQualifier } from './TypeQualifier.js';
import { ValueChange } from './ValueChange.js';
import { ValueHistoryEntry } from './ValueHistoryEntry.js';
import { LifecycleEvent } from './LifecycleEvent.js';
import { ValueImpact } from './ValueImpact.js';
import { AccessExplanation, Policy, policyMutations, policyQueries, WhoCould } from './Policy.js';
import { DataHubView } from './DataHubView.js';
import { asset, datahubEntityResolvers } from './datahubEntities.js';
import { DataHubMutation, DataHubQuery } from './datahubQuery.js';
import { PlatformPrivileges } from './PlatformPrivileges.js';
import { SchemaMetadata } from './SchemaMetadata.js';
import { fieldsByType, loadTypeDefs } from '../typeDefs.js';

/** DataHub's graph edges: propgraph keeps no relationship index (datahubEntities.ts). */
const relationships = () => ({ start: 0, count: 0, total: 0, relationships: [] });
const byEntityType = { __resolveType: (model: Parameters<typeof resolveEntityType>[0]) => resolveEntityType(model) };

const schemaFields = fieldsByType(loadTypeDefs());
/** A type's own resolvers over the fields every asset answers alike (datahubEntities.ts), those its schema type has. */
const withAssetFields = <T extends object>(typeName: string, own: T): T => ({ ...asset(schemaFields(typeName)), ...own });

export const resolvers: Resolvers = {
  ...(datahubEntityResolvers(schemaFields) as Resolvers),
  Long,
  Query: { ...Query, ...DataHubQuery, ...policyQueries },
  Mutation: { ...Mutation, ...DataHubMutation, ...policyMutations },
  Entity,
  EntityWithRelationships: byEntityType as Resolvers['EntityWithRelationships'],
  SupportsVersions: byEntityType as Resolvers['SupportsVersions'],
  PlatformSchema: { __resolveType: (schema) => schema.__typename ?? 'TableSchema' },
  DataHubView,
  PlatformPrivileges,
  SchemaMetadata,
  Dataset: withAssetFields('Dataset', Dataset),
  DataPlatform,
  SchemaFieldEntity: withAssetFields('SchemaFieldEntity', SchemaFieldEntity),
  GenericEntity: { ...GenericEntity, relationships },
  CorpUser,
  StructuredPropertyEntity: { ...StructuredPropertyEntity, relationships },
  StructuredPropertyDefinition,
  StructuredProperties,
  StructuredPropertiesEntry,
  MetadataAttribution,
  PropertyValue,
  StringValue,
  NumberValue,
  TypeQualifier,
  ResolvedAuditStamp,
  DataTypeEntity: { ...DataTypeEntity, relationships },
  DataTypeInfo,
  EntityTypeEntity: { ...EntityTypeEntity, relationships },
  EntityTypeInfo,
  Test: { ...Test, relationships },
  TestCompliance,
  TestResult,
  AccessTokenMetadata,
  AuthenticatedUser,
  Job,
  SchemaField,
  StructuredPropertyDefinitionRevision,
  ValueHistoryEntry,
  LifecycleEvent,
  ValueChange,
  ValueImpact,
  BulkEditResult,
  BulkEditChange,
  Policy,
  AccessExplanation,
  WhoCould,
  ValueImportResult,
};
