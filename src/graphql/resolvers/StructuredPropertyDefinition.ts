import { definitionAudit, hasOwnAudit } from '../../domain/propertyDefinition.js';
import { dataTypeOf, dataTypeUrn, entityTypeOf, entityTypeUrn } from '../../domain/typeUrns.js';
import type { StructuredPropertyDefinitionResolvers } from '../generated/resolvers-types.js';
import type { GraphQLContext } from '../context.js';
import type { DefinitionModel } from '../models.js';
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { tryParseUrn } from '../../domain/urn.js';
import { entityModel } from './entityModel.js';

async function auditOf(m: DefinitionModel, ctx: GraphQLContext) {
  return definitionAudit(m.definition, hasOwnAudit(m.definition) ? undefined : ((await ctx.loaders.propertyAudit.load(m.urn)) ?? undefined));
}

export const StructuredPropertyDefinition: StructuredPropertyDefinitionResolvers = {
  qualifiedName: (m) => m.definition.qualifiedName,
  displayName: (m) => m.definition.displayName ?? null,
  description: (m) => m.definition.description ?? null,
  // Defaults as DataHub materialises them when they were not written.
  cardinality: (m) => m.definition.cardinality ?? 'SINGLE',
  immutable: (m) => m.definition.immutable ?? false,
  valueType: (m, _args, ctx) => entityModel(dataTypeUrn(dataTypeOf(m.definition.valueType), ctx.urnNamespace)),
  typeQualifier: (m) => (m.definition.typeQualifier ? { allowedTypes: m.definition.typeQualifier.allowedTypes } : null),
  allowedValues: (m) => m.definition.allowedValues ?? null,
  entityTypes: (m, _args, ctx) => m.definition.entityTypes.map((t) => entityModel(entityTypeUrn(entityTypeOf(t), ctx.urnNamespace))),
  version: (m) => m.definition.version ?? null,
  allowedPlatforms: (m) => (m.definition.allowedPlatforms ?? []).flatMap((urn) => {
    const parsed = tryParseUrn(urn);
    return parsed.ok && parsed.urn.entityType === ENTITY.dataPlatform ? [entityModel(urn)] : [];
  }),
  created: async (m, _args, ctx) => (await auditOf(m, ctx)).created,
  lastModified: async (m, _args, ctx) => (await auditOf(m, ctx)).lastModified,
};
