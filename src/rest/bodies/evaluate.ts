/** The bodies of `POST /gms/test?action=evaluate|batchEvaluate` (docs/contract.md §7). */
import * as z from 'zod';
import { urnText } from '../../domain/shapes/common.js';
import { TEST_LIMITS } from '../../domain/testLimits.js';

const testUrns = z.array(urnText).max(TEST_LIMITS.batchEntities * 100).nullish();

const common = {
  push: z.boolean().nullish().describe("Store the results as the entity's `testResults`."),
  testUrns: testUrns.describe('Only these tests.'),
  tests: testUrns.describe('An alias of `testUrns`.'),
};

const notBoth = (b: { testUrns?: unknown; tests?: unknown }) => b.testUrns == null || b.tests == null;
const NOT_BOTH = { error: 'give testUrns or its alias tests, not both', path: ['tests'] };

export const evaluateShape = z
  .strictObject({ urn: urnText.describe('The entity to evaluate the tests on.'), ...common })
  .refine(notBoth, NOT_BOTH)
  .meta({ id: 'EvaluateRequest', description: '`action=evaluate`: run the tests in scope on one entity.' });

export const batchEvaluateShape = z
  .strictObject({ urns: z.array(urnText).max(TEST_LIMITS.batchEntities * 100).describe(`The entities (at most ${TEST_LIMITS.batchEntities}).`), ...common })
  .refine(notBoth, NOT_BOTH)
  .meta({ id: 'BatchEvaluateRequest', description: '`action=batchEvaluate`: run the tests in scope on several entities.' });
