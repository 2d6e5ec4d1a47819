/** The `status` aspect (docs/contract.md §5), parsed from its shape. */
import { parseShape } from './shapes/shape.js';
import { statusShape } from './shapes/status.js';

export function parseStatus(input: unknown): { removed: boolean } {
  return parseShape(statusShape, input, 'status');
}
