/** The body of `POST /openapi/v3/tests/run` (docs/metadata-tests.md, "Running tests on demand"). */
import * as z from 'zod';
import { urnText } from '../../domain/shapes/common.js';
import { MAX_TEST_URNS } from '../../services/testCatalog.js';

export const testRunShape = z
  .strictObject({
    testUrns: z.array(urnText).max(MAX_TEST_URNS).nullish().describe('The tests to run; absent: every live test.'),
    query: z.string().max(10_000).nullish().describe('A search (keywords and the query syntax of `GET /entity/{entityName}`) choosing the entities; absent: every entity the tests select.'),
    types: z.array(z.string().max(100)).max(100).nullish().describe('Entity types the query searches; absent: those searched by default.'),
  })
  .meta({ id: 'TestRunRequest', description: 'Tests to run over entities, as a job.' });
