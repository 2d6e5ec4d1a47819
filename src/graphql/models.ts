/**
 * The parent objects GraphQL resolvers pass down (codegen "mappers"): small records
 * from which field resolvers load or derive the rest, so a query pays only for the
 * fields it selects.
 */
import type { EntityTypeInfo } from '../domain/registry/entityTypes.js';
import type { AllowedValue, PropertyDefinition } from '../domain/propertyDefinition.js';
import type { PropertyValueAssignment } from '../domain/structuredProperties.js';
import type { TypedValue } from '../domain/typedValue.js';
import type { DataType } from '../domain/typeUrns.js';
import type { PredicateOutcome } from '../domain/testExplanation.js';
import type { ExplainedOutcome, TestCompliance } from '../services/complianceService.js';
import type { Privileges } from '../services/accessService.js';
import type { SavedView } from '../domain/savedView.js';

/** Any entity: its urn and type; GraphQL's concrete type follows from the entity type. */
export interface EntityModel {
  readonly urn: string;
  readonly entityType: EntityTypeInfo;
}

export interface DefinitionModel {
  readonly urn: string;
  readonly definition: PropertyDefinition;
}

export interface StructuredPropertiesModel {
  readonly associatedUrn: string;
  readonly properties: readonly PropertyValueAssignment[];
  /** The aspect's stored version as read or written (its systemMetadata.version); null when unknown. */
  readonly aspectVersion?: string | null;
}

export interface StructuredPropertiesEntryModel {
  readonly associatedUrn: string;
  readonly propertyUrn: string;
  readonly values: readonly TypedValue[];
  /** DataHub's MetadataAttribution as stored (shape-checked on write). */
  readonly attribution?: unknown;
}

/** DataHub's MetadataAttribution of a property's values, as the aspect stores it. */
export interface AttributionModel {
  readonly time: number;
  readonly actor: string;
  readonly source?: string;
  readonly sourceDetail?: Readonly<Record<string, string>>;
}

export type AllowedValueModel = AllowedValue;
export type PropertyValueModel = TypedValue;

export interface TypeQualifierModel {
  readonly allowedTypes: readonly string[];
}

export interface AuditStampModel {
  readonly time: number;
  readonly actor: string;
}

export interface SearchResultModel {
  readonly entity: EntityModel;
}

export interface TestResultModel {
  readonly test: string;
  readonly type: 'SUCCESS' | 'FAILURE';
  readonly lastComputed?: { readonly time: number; readonly actor: string };
}

export interface TestResultsModel {
  readonly passing: readonly TestResultModel[];
  readonly failing: readonly TestResultModel[];
}

export interface TestDefinitionModel {
  readonly json: string | null;
}

export interface ListTestsResultModel {
  readonly start: number;
  readonly count: number;
  readonly total: number;
  readonly tests: readonly EntityModel[];
}

export interface DataTypeInfoModel {
  readonly type: DataType;
}

export interface EntityTypeInfoModel {
  readonly type: EntityTypeInfo;
}

/** A field listed in a dataset's schemaMetadata. */
export interface SchemaFieldModel {
  readonly datasetUrn: string;
  readonly fieldPath: string;
  readonly nativeDataType: string | null;
  readonly description: string | null;
  /** The field as stored (shape-checked only), for DataHub's fields of it. */
  readonly stored: Readonly<Record<string, unknown>>;
}

export interface SchemaMetadataModel {
  readonly datasetUrn: string;
  readonly fields: readonly SchemaFieldModel[];
  /** The aspect as stored, for DataHub's fields of it. */
  readonly stored: Readonly<Record<string, unknown>>;
}

/** A saved view (domain/savedView.ts). */
export type SavedViewModel = SavedView;

/** What the caller may do: propgraph's privileges and the global views they may manage. */
export type PlatformPrivilegesModel = Privileges & { readonly manageGlobalViews: boolean };

export interface DefinitionRevisionModel {
  readonly revision: number;
  readonly definition: DefinitionModel;
  readonly written: AuditStampModel;
}

/** One test's compliance counts and trend (services/complianceService.ts). */
export type TestComplianceModel = TestCompliance;
export type TestExplanationModel = ExplainedOutcome;
export type PredicateOutcomeModel = PredicateOutcome;

export type { HistoryEntry as ValueHistoryEntryModel, ValueChange as ValueChangeModel, LifecycleEntry as LifecycleEventModel } from '../services/historyService.js';
export type { ValueImpact as ValueImpactModel } from '../domain/valueImpact.js';
export type { BulkEditAnswer as BulkEditResultModel } from '../services/bulkEditService.js';
export type { EntityEdit as BulkEditChangeModel, BulkEditResult as BulkEditProgressModel } from '../services/jobs/bulkEditValues.js';
export type { ValueImportResult as ValueImportResultModel } from '../services/valueImportService.js';
