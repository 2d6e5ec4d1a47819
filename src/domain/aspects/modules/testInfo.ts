/**
 * The testInfo aspect of a metadata test (docs/contract.md §7): an invalid definition is
 * refused with the reason and never stored (domain/testInfo.ts parses it).
 */
import { parseTestInfo } from '../../testInfo.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from '../../writes/aspectRules.js';
import type { AspectModule } from '../aspectModule.js';

export const testInfoRules: AspectRules = {
  createsEntity: true,
  needs: () => NO_NEEDS,
  view: storedAsIs,
  decide: (next, state) => ({ ...plainDecision(parseTestInfo(next).info), events: [{ event: state.stored === undefined ? 'created' : 'changed' }] }),
};

export const testInfo: AspectModule = {
  name: 'testInfo',
  pdlClass: 'com.linkedin.test.TestInfo',
  rules: testInfoRules,
  audit: { write: () => 'test.write' },
};
