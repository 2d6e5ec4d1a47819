/**
 * The testResults aspect of an asset (SPEC 7): written by test evaluation with
 * `push: true` (or directly over REST), after a shape check. Results describe an
 * entity, so they never create one.
 */
import { parseTestResults } from '../../domain/testResults.js';
import { identityView, type AspectHandler } from './handler.js';

export const testResultsHandler: AspectHandler = {
  createsEntity: false,
  view: identityView,
  prepare: async (_tx, _urn, next) => ({ stored: parseTestResults(next) }),
};
