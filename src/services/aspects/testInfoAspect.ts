/**
 * The testInfo aspect of a test entity (SPEC 7): the definition is parsed on every
 * write, so an invalid test is refused with the reason and never stored.
 */
import { parseTestInfo } from '../../domain/testInfo.js';
import { identityView, type AspectHandler } from './handler.js';

export const testInfoHandler: AspectHandler = {
  createsEntity: true,
  view: identityView,
  prepare: async (_tx, _urn, next) => ({ stored: parseTestInfo(next).info }),
};
