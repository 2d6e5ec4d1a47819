/** What every resolver receives: the authenticated caller, the services and per-request loaders. */
import type { UrnNamespace } from '../domain/typeUrns.js';
import type { Caller } from '../services/caller.js';
import type { RequestReceipts } from '../services/writeReceipt.js';
import type { EngineRequest } from '../services/searchService.js';
import type { Services } from '../services/index.js';
import type { Loaders } from './loaders.js';

export interface GraphQLContext {
  readonly caller: Caller;
  readonly services: Services;
  readonly loaders: Loaders;
  /** Added to the response's `extensions` (e.g. what a search did and how long it took). */
  readonly extensions: Record<string, unknown>;
  /**
   * The receipts of this request's writes: each mutation resolver adds what its service
   * call returned; the answer tells whether they were indexed (`extensions.indexStatus`
   * and the X-Index-Status header).
   */
  readonly receipts: RequestReceipts;
  /**
   * Where the engine requests of this request's searches go when it asked to see them
   * (X-Propgraph-Explain, rest/explainHeader.ts); null otherwise. Each search resolver
   * adds what its service call returned.
   */
  readonly engineRequests: EngineRequest[] | null;
  /** The namespace type URNs and their qualified names are shown in (URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
}
