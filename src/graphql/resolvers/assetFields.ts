/** Fields shared by every asset type that can hold structured properties. */
import { ASPECT } from '../../domain/aspects/index.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel, StructuredPropertiesModel, TestResultsModel } from '../models.js';
import type { PropertyValueAssignment } from '../../domain/structuredProperties.js';

export async function structuredPropertiesOf(model: EntityModel, _args: unknown, ctx: GraphQLContext): Promise<StructuredPropertiesModel | null> {
  const aspect = await ctx.loaders.aspect.load({ urn: model.urn, aspect: ASPECT.structuredProperties });
  if (!aspect) return null;
  const properties = (aspect.value as { properties?: PropertyValueAssignment[] }).properties ?? [];
  return { associatedUrn: model.urn, properties, aspectVersion: versionOf(aspect.systemMetadata) };
}

export async function testResultsOf(model: EntityModel, _args: unknown, ctx: GraphQLContext): Promise<TestResultsModel | null> {
  const aspect = await ctx.loaders.aspect.load({ urn: model.urn, aspect: ASPECT.testResults });
  return aspect ? (aspect.value as TestResultsModel) : null;
}

/** An aspect's stored version (systemMetadata.version), which a write sends back as expectedVersion. */
export function versionOf(systemMetadata: Record<string, unknown> | null | undefined): string | null {
  const v = systemMetadata?.version;
  return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
}
