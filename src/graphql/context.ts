/** What every resolver receives: the authenticated caller, the services and per-request loaders. */
import type { Caller } from '../services/caller.js';
import type { IndexStatusReport } from '../services/indexStatus.js';
import type { Services } from '../services/index.js';
import type { Loaders } from './loaders.js';

export interface GraphQLContext {
  readonly caller: Caller;
  readonly services: Services;
  readonly loaders: Loaders;
  /** Added to the response's `extensions` (e.g. what a search did and how long it took). */
  readonly extensions: Record<string, unknown>;
  /** Whether this request's writes were indexed before it answered (null outside an HTTP request). */
  readonly indexStatus?: IndexStatusReport | null;
}
