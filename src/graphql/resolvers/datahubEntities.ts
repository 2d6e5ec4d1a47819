/**
 * DataHub's entity types beyond propgraph's own (Tag, Container, CorpGroup, GlossaryTerm,
 * Domain, ...), as its web app reads them where a dataset names them: their key fields
 * from the URN and their fields from the aspects DataHub's clients wrote. What every
 * entity type shares (ownership, tags, terms, browse path, ...) is one resolver per field,
 * attached to each type that has the field.
 */
import { ALL_ASPECTS } from '../../domain/aspects/index.js';
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import { editsSomeProperty } from '../../services/accessService.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel } from '../models.js';
import {
  browsePathOf,
  deprecationOf,
  domainOf,
  entityOf,
  fromAspect,
  globalTagsOf,
  glossaryTermsOf,
  institutionalMemoryOf,
  ownershipOf,
  parentContainersOf,
  subTypesOf,
} from './datahubAspects.js';
import { aspectFields, text } from './displayAspects.js';
import { entityModel, entityTypeOf } from './entityModel.js';

type Resolver = (model: EntityModel, args: never, ctx: GraphQLContext) => unknown;

/** The key part named `field` of the entity's URN (its id for single-part keys). */
export const keyPart = (model: EntityModel, field: string): string => keyAspectOf(parseUrn(model.urn))[field] ?? parseUrn(model.urn).id;

/**
 * What the caller may do on an entity, as DataHub's EntityPrivileges: propgraph's web app
 * routes edit structured property values, offered when the policies let the caller set
 * some property's values on this entity (entityAccess); DataHub's other edits (tags,
 * owners, docs, ...) have no mutation here, so the app does not offer them.
 */
export async function entityPrivilegesOf(ctx: GraphQLContext, urn: string) {
  const access = await ctx.services.access.entityPrivileges(ctx.caller, urn);
  return {
    canEditProperties: editsSomeProperty(access),
    canEditLineage: false,
    canEditDomains: false,
    canEditDataProducts: false,
    canEditTags: false,
    canEditGlossaryTerms: false,
    canEditDescription: false,
    canEditLinks: false,
    canEditOwners: false,
    canEditAssertions: false,
    canEditAssertionOwners: false,
    canEditIncidents: false,
    canEditDeprecation: false,
    canEditSchemaFieldTags: false,
    canEditSchemaFieldGlossaryTerms: false,
    canEditSchemaFieldDescription: false,
    canEditQueries: false,
    canEditEmbed: false,
    canManageEntity: false,
    canManageChildren: false,
    canViewDatasetUsage: false,
    canViewDatasetProfile: false,
    canViewDatasetOperations: false,
    canManageAssetSummary: false,
  };
}

/** DataHub's graph edges (lineage, notes, members): propgraph keeps no relationship index, so there are none. */
const noRelationships = () => ({ start: 0, count: 0, total: 0, relationships: [] });

/** The fields aspect modules show (domain/aspects/: `graphql`), each the module's view of the stored aspect. */
const ASPECT_FIELDS: Readonly<Record<string, Resolver>> = Object.fromEntries(
  ALL_ASPECTS.flatMap((a) => (a.graphql ? [[a.graphql.field, (m: EntityModel, _a: never, ctx: GraphQLContext) => fromAspect(m, a.name, ctx, (s) => (s ? a.graphql!.view(s) : null))]] : [])),
);

/** Fields every DataHub entity type that has them answers the same way. */
export const ASSET_FIELDS: Readonly<Record<string, Resolver>> = {
  ...ASPECT_FIELDS,
  type: entityTypeOf,
  ownership: (m, _a, ctx) => fromAspect(m, 'ownership', ctx, (s) => ownershipOf(s, m.urn)),
  globalTags: (m, _a, ctx) => fromAspect(m, 'globalTags', ctx, (s) => globalTagsOf(s, m.urn)),
  tags: (m, _a, ctx) => fromAspect(m, 'globalTags', ctx, (s) => globalTagsOf(s, m.urn)),
  glossaryTerms: (m, _a, ctx) => fromAspect(m, 'glossaryTerms', ctx, (s) => glossaryTermsOf(s, m.urn)),
  deprecation: (m, _a, ctx) => fromAspect(m, 'deprecation', ctx, deprecationOf),
  institutionalMemory: (m, _a, ctx) => fromAspect(m, 'institutionalMemory', ctx, (s) => institutionalMemoryOf(s, m.urn)),
  subTypes: (m, _a, ctx) => fromAspect(m, 'subTypes', ctx, subTypesOf),
  browsePathV2: (m, _a, ctx) => fromAspect(m, 'browsePathsV2', ctx, browsePathOf),
  domain: (m, _a, ctx) => fromAspect(m, 'domains', ctx, (s) => domainOf(s, m.urn)),
  container: (m, _a, ctx) => fromAspect(m, 'container', ctx, (s) => entityOf(s?.container)),
  parentContainers: (m, _a, ctx) => parentContainersOf(m, ctx),
  dataPlatformInstance: (m, _a, ctx) => fromAspect(m, 'dataPlatformInstance', ctx, (s) => entityOf(s?.instance)),
  privileges: (m, _a, ctx) => entityPrivilegesOf(ctx, m.urn),
  relationships: noRelationships,
  exists: (m, _a, ctx) => ctx.loaders.exists.load(m.urn),
};

/** The shared fields, for a type whose schema fields are `fields`. */
export function asset(fields: readonly string[]): Record<string, Resolver> {
  return Object.fromEntries(fields.flatMap((f) => (ASSET_FIELDS[f] ? [[f, ASSET_FIELDS[f]]] : [])));
}

/** A name from an aspect's `name`, else the URN's key. */
async function named(model: EntityModel, aspect: string, ctx: GraphQLContext, keyField: string): Promise<string> {
  return text((await aspectFields(model, aspect, ctx))?.name) ?? keyPart(model, keyField);
}

const platformOf = (model: EntityModel, keyField = 'platform') => entityModel(keyPart(model, keyField));

/** Resolvers of DataHub's entity types, by GraphQL type; `schemaFields` lists each type's fields in schema.graphql. */
export function datahubEntityResolvers(schemaFields: (typeName: string) => readonly string[]): Record<string, Record<string, unknown>> {
  const withAsset = (typeName: string, own: Record<string, Resolver>) => ({ ...asset(schemaFields(typeName)), ...own });
  return {
    Tag: withAsset('Tag', {
      name: (m, _a, ctx) => named(m, 'tagProperties', ctx, 'name'),
      description: async (m, _a, ctx) => text((await aspectFields(m, 'tagProperties', ctx))?.description),
      properties: async (m, _a, ctx) => {
        const s = await aspectFields(m, 'tagProperties', ctx);
        return { name: text(s?.name) ?? keyPart(m, 'name'), colorHex: text(s?.colorHex), description: text(s?.description) };
      },
    }),
    CorpGroup: withAsset('CorpGroup', {
      name: (m) => keyPart(m, 'name'),
      info: (m, _a, ctx) => groupInfoOf(m, ctx),
      properties: (m, _a, ctx) => groupInfoOf(m, ctx),
    }),
    GlossaryTerm: withAsset('GlossaryTerm', {
      name: (m, _a, ctx) => named(m, 'glossaryTermInfo', ctx, 'name'),
      hierarchicalName: (m) => keyPart(m, 'name'),
      properties: async (m, _a, ctx) => {
        const s = await aspectFields(m, 'glossaryTermInfo', ctx);
        return { name: text(s?.name) ?? keyPart(m, 'name'), description: text(s?.definition), definition: text(s?.definition) ?? '', termSource: text(s?.termSource) ?? 'INTERNAL', customProperties: [] };
      },
      parentNodes: () => ({ count: 0, nodes: [] }),
    }),
    GlossaryNode: withAsset('GlossaryNode', {
      properties: async (m, _a, ctx) => {
        const s = await aspectFields(m, 'glossaryNodeInfo', ctx);
        return { name: text(s?.name) ?? keyPart(m, 'name'), description: text(s?.definition) };
      },
    }),
    Container: withAsset('Container', {
      platform: async (m, _a, ctx) => entityOf((await aspectFields(m, 'dataPlatformInstance', ctx))?.platform) ?? entityModel('urn:li:dataPlatform:unknown'),
      properties: async (m, _a, ctx) => {
        const s = await aspectFields(m, 'containerProperties', ctx);
        return { name: text(s?.name) ?? keyPart(m, 'guid'), description: text(s?.description), externalUrl: text(s?.externalUrl) };
      },
    }),
    Domain: withAsset('Domain', {
      properties: async (m, _a, ctx) => {
        const s = await aspectFields(m, 'domainProperties', ctx);
        return { name: text(s?.name) ?? keyPart(m, 'id'), description: text(s?.description) };
      },
      parentDomains: () => ({ count: 0, domains: [] }),
    }),
    DataProduct: withAsset('DataProduct', {
      properties: async (m, _a, ctx) => {
        const s = await aspectFields(m, 'dataProductProperties', ctx);
        return { name: text(s?.name) ?? keyPart(m, 'id'), description: text(s?.description) };
      },
    }),
    DataPlatformInstance: withAsset('DataPlatformInstance', { instanceId: (m) => keyPart(m, 'instance'), platform: (m) => platformOf(m) }),
    OwnershipTypeEntity: withAsset('OwnershipTypeEntity', {
      info: async (m, _a, ctx) => {
        const s = await aspectFields(m, 'ownershipTypeInfo', ctx);
        return s ? { name: text(s.name) ?? keyPart(m, 'id'), description: text(s.description) } : null;
      },
    }),
    Role: withAsset('Role', { id: (m) => keyPart(m, 'id') }),
    Chart: withAsset('Chart', { chartId: (m) => keyPart(m, 'chartId'), tool: (m) => keyPart(m, 'dashboardTool'), platform: (m) => entityModel(`urn:li:dataPlatform:${keyPart(m, 'dashboardTool')}`) }),
    Dashboard: withAsset('Dashboard', { dashboardId: (m) => keyPart(m, 'dashboardId'), tool: (m) => keyPart(m, 'dashboardTool'), platform: (m) => entityModel(`urn:li:dataPlatform:${keyPart(m, 'dashboardTool')}`) }),
    DataFlow: withAsset('DataFlow', {
      orchestrator: (m) => keyPart(m, 'orchestrator'),
      flowId: (m) => keyPart(m, 'flowId'),
      cluster: (m) => keyPart(m, 'cluster'),
      platform: (m) => entityModel(`urn:li:dataPlatform:${keyPart(m, 'orchestrator')}`),
    }),
    DataJob: withAsset('DataJob', { jobId: (m) => keyPart(m, 'jobId'), dataFlow: (m) => entityModel(keyPart(m, 'flow')) }),
    MLModel: withAsset('MLModel', { name: (m) => keyPart(m, 'name'), platform: (m) => platformOf(m), origin: (m) => keyPart(m, 'origin') }),
    MLModelGroup: withAsset('MLModelGroup', { name: (m) => keyPart(m, 'name'), platform: (m) => platformOf(m), origin: (m) => keyPart(m, 'origin') }),
    MLFeatureTable: withAsset('MLFeatureTable', { name: (m) => keyPart(m, 'name'), platform: (m) => platformOf(m) }),
    MLFeature: withAsset('MLFeature', { name: (m) => keyPart(m, 'name'), featureNamespace: (m) => keyPart(m, 'featureNamespace') }),
    MLPrimaryKey: withAsset('MLPrimaryKey', { name: (m) => keyPart(m, 'name'), featureNamespace: (m) => keyPart(m, 'featureNamespace') }),
    // Owners and actors are people or groups (DataHub's unions of the two).
    OwnerType: { __resolveType: (m: EntityModel) => (m.entityType === ENTITY.corpGroup ? 'CorpGroup' : 'CorpUser') },
    ResolvedActor: { __resolveType: (m: EntityModel) => (m.entityType === ENTITY.corpGroup ? 'CorpGroup' : 'CorpUser') },
  };
}

async function groupInfoOf(model: EntityModel, ctx: GraphQLContext) {
  const s = await aspectFields(model, 'corpGroupInfo', ctx);
  if (!s) return null;
  const members = (key: string) => (Array.isArray(s[key]) ? (s[key] as unknown[]).flatMap((u) => entityOf(u) ?? []) : []);
  return { displayName: text(s.displayName), email: text(s.email), description: text(s.description), admins: members('admins'), members: members('members'), groups: Array.isArray(s.groups) ? s.groups.filter((g): g is string => typeof g === 'string') : [] };
}
