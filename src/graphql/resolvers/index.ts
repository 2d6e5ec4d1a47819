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
import { Entity } from './Entity.js';
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

export const resolvers: Resolvers = {
  Long,
  Query: { ...Query, ...policyQueries },
  Mutation: { ...Mutation, ...policyMutations },
  Entity,
  Dataset,
  DataPlatform,
  SchemaFieldEntity,
  GenericEntity,
  CorpUser,
  StructuredPropertyEntity,
  StructuredPropertyDefinition,
  StructuredProperties,
  StructuredPropertiesEntry,
  MetadataAttribution,
  PropertyValue,
  StringValue,
  NumberValue,
  TypeQualifier,
  ResolvedAuditStamp,
  DataTypeEntity,
  DataTypeInfo,
  EntityTypeEntity,
  EntityTypeInfo,
  Test,
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
