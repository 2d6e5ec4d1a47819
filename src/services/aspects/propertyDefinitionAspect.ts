/**
 * The propertyDefinition aspect (SPEC 2): parsed and canonicalised, checked for
 * backwards compatibility against the stored definition, refused while the property
 * is soft deleted. The registry row follows in the same transaction; a new version
 * (or a new property) draws a new generation, which hides every older value at once,
 * and a cleanup job then deletes those values.
 */
import { checkCompatibility } from '../../domain/compatibility.js';
import { SoftDeletedError, ValidationError } from '../../domain/errors.js';
import { parsePropertyDefinition, searchFieldName, type PropertyDefinition } from '../../domain/propertyDefinition.js';
import { parseDataTypeUrn } from '../../domain/typeUrns.js';
import { enqueueJob } from '../../store/jobs.js';
import {
  deleteRegistry,
  findProperty,
  nextGeneration,
  searchFieldOwner,
  upsertRegistry,
} from '../../store/propertyRegistry.js';
import { CLEANUP_PROPERTY_VALUES } from '../jobs/kinds.js';
import { identityView, type AspectHandler } from './handler.js';

export const propertyDefinitionHandler: AspectHandler = {
  createsEntity: true,
  view: identityView,
  prepare: async (tx, urn, next, stored) => {
    const parsed = parsePropertyDefinition(next, urn.id);
    const registered = await findProperty(tx, urn.value);
    if (registered?.removed) {
      throw new SoftDeletedError('Cannot mutate a soft deleted Structured Property Definition', 'propertyDefinition');
    }
    let definition: PropertyDefinition = parsed;
    let newGeneration = registered === undefined;
    if (stored !== undefined && registered) {
      const update = checkCompatibility(stored as PropertyDefinition, parsed);
      definition = update.definition;
      newGeneration = update.versionChanged;
    }
    const searchField = searchFieldName(definition.qualifiedName);
    const owner = await searchFieldOwner(tx, searchField, urn.value);
    if (owner) {
      throw new ValidationError(
        `Structured property ${urn.value} would share the search field structuredProperties.${searchField} with ${owner}; ` +
          'qualified names that differ only by "." and "_" cannot both exist',
        'qualifiedName',
      );
    }
    return {
      stored: definition,
      afterWrite: async (t) => {
        const generation = newGeneration ? await nextGeneration(t) : registered!.generation;
        await upsertRegistry(t, {
          urn: urn.value,
          qualifiedName: definition.qualifiedName,
          searchField,
          valueType: parseDataTypeUrn(definition.valueType),
          version: definition.version ?? null,
          generation,
        });
        // Values under an older generation (a previous version) are now invisible; remove them.
        if (newGeneration && registered) await enqueueJob(t, CLEANUP_PROPERTY_VALUES, { propertyUrn: urn.value });
      },
    };
  },
  onDelete: async (tx, urn) => {
    await deleteRegistry(tx, urn.value);
    await enqueueJob(tx, CLEANUP_PROPERTY_VALUES, { propertyUrn: urn.value });
  },
};
