/** The `testResults` aspect's shape (docs/contract.md §7, DataHub's TestResults). */
import * as z from 'zod';
import { auditStampShape, urnText } from './common.js';

export const MAX_TEST_RESULTS = 10_000;

const resultShape = (type: 'SUCCESS' | 'FAILURE') =>
  z.strictObject({
    test: urnText.describe('`urn:li:test:<id>`'),
    type: z.literal(type),
    testDefinitionMd5: z.string().max(100).optional(),
    lastComputed: auditStampShape.optional(),
  });

export const testResultShape = z
  .strictObject({ test: urnText, type: z.enum(['SUCCESS', 'FAILURE']) })
  .meta({ id: 'TestResult', description: 'The outcome of one test on one entity.' });

export const testResultsShape = z
  .strictObject({
    passing: z.array(resultShape('SUCCESS')).max(MAX_TEST_RESULTS),
    failing: z.array(resultShape('FAILURE')).max(MAX_TEST_RESULTS),
  })
  .meta({ id: 'TestResults', description: 'The `testResults` aspect, stored by an evaluation with `push: true`.' });
