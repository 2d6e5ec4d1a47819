/**
 * The keys of each object of a metadata test definition (docs/contract.md §7): the definition,
 * its "on" and "actions", a leaf predicate and its legacy "params". The grammar itself
 * (predicates nest, legacy spellings, operators, property paths) is parsed by
 * domain/testDefinition.ts.
 */
import * as z from 'zod';

const anything = z.unknown().optional();
export const DEFINITION_KEYS = z.strictObject({
  on: z.strictObject(
    { types: anything, conditions: anything, match: anything },
    { error: (iss) => (iss.input === undefined ? 'is required: {"types": [entity types], "conditions"?: ...}' : undefined) },
  ),
  rules: z.custom<unknown>((v) => v !== undefined, { error: 'is required' }),
  // Actions are not run by this service; empty action lists (as DataHub's UI writes them) are accepted.
  actions: z
    .strictObject({
      passing: z.array(z.unknown()).max(0, { error: 'test actions are not supported; leave the list empty' }).optional(),
      failing: z.array(z.unknown()).max(0, { error: 'test actions are not supported; leave the list empty' }).optional(),
    })
    .nullish(),
});
export const LEAF_KEYS = z.strictObject({
  property: anything,
  query: anything,
  operator: anything,
  operation: anything,
  values: anything,
  value: anything,
  params: anything,
  negate: anything,
});
export const PARAMS_KEYS = z.strictObject({ values: anything, value: anything });

