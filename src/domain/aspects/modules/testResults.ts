/**
 * The testResults aspect of an asset (docs/contract.md §7): the tests it passes and fails,
 * written by the evaluator through the write path and searched as passingTests,
 * failingTests, hasPassingTests and hasFailingTests (domain/testResults.ts parses it).
 */
import { booleanField, urnField } from '../../searchFieldKinds.js';
import { parseTestResults } from '../../testResults.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from '../../writes/aspectRules.js';
import type { AspectModule } from '../aspectModule.js';

/** Results describe an entity, so they never create one. */
export const testResultsRules: AspectRules = {
  createsEntity: false,
  needs: () => NO_NEEDS,
  view: storedAsIs,
  decide: (next) => plainDecision(parseTestResults(next)),
};

export const testResults: AspectModule = {
  name: 'testResults',
  pdlClass: 'com.linkedin.test.TestResults',
  rules: testResultsRules,
  facts: [
    { field: 'passingTests', path: ['passing', '*', 'test'] },
    { field: 'failingTests', path: ['failing', '*', 'test'] },
    { field: 'hasPassingTests', path: ['passing', '*'], as: 'nonEmpty' },
    { field: 'hasFailingTests', path: ['failing', '*'], as: 'nonEmpty' },
  ],
  searchFields: {
    passingTests: urnField('Passing tests', 'test'),
    failingTests: urnField('Failing tests', 'test'),
    hasPassingTests: booleanField('Has passing tests'),
    hasFailingTests: booleanField('Has failing tests'),
  },
};
