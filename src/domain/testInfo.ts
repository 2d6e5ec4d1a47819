/**
 * The `testInfo` aspect of a test entity (docs/contract.md §7): name, category, description and
 * the definition's JSON text. Checked on every write, definition included, so a
 * stored test always parses; stored exactly as given (no defaults added).
 */
import { parseShape } from './shapes/shape.js';
import { testInfoShape } from './shapes/testInfo.js';
import { parseTestDefinitionJson, type TestDefinition } from './testDefinition.js';

export interface TestInfo {
  name: string;
  category: string;
  description?: string;
  definition: { type?: 'JSON'; json: string; md5?: string };
  [field: string]: unknown;
}

export function parseTestInfo(raw: unknown): { info: TestInfo; definition: TestDefinition } {
  parseShape(testInfoShape, raw, 'testInfo');
  const info = raw as TestInfo;
  return { info, definition: parseTestDefinitionJson(info.definition.json) };
}
