/**
 * What DataHub's web app asks of the server beyond the catalog: its start-up configuration
 * (`appConfig`, from this server's settings: domain/datahubAppConfig.ts) and which of its
 * guided tours and announcements a person has been through (its "step states"), kept as
 * DataHub keeps them: the `dataHubStepStateProperties` aspect of `urn:li:dataHubStepState:<id>`,
 * written through the one write path.
 */
import { scopeAllows } from '../domain/accessToken.js';
import { datahubAppConfig, type AppConfigFacts } from '../domain/datahubAppConfig.js';
import { ForbiddenError, ValidationError } from '../domain/errors.js';
import { LIMITS } from '../domain/limits.js';
import { findEntityType } from '../domain/registry/entityTypes.js';
import { tryParseUrn } from '../domain/urn.js';
import { entityPlan, setChange } from '../domain/writes/plan.js';
import type { Caller } from './caller.js';
import type { EntityService } from './entityService.js';
import type { WriteService } from './writes/writeService.js';
import { bothWrites, NOTHING_WRITTEN, type Written } from './writeReceipt.js';

const STEP_TYPE = findEntityType('dataHubStepState')!;
const STEP_ASPECT = 'dataHubStepStateProperties';
/** Steps one request may read or write (the app asks for a handful). */
const MAX_STEPS = 100;

export interface StepState {
  readonly id: string;
  readonly properties: ReadonlyArray<{ readonly key: string; readonly value: string }>;
}

export class DataHubAppService {
  constructor(
    private readonly facts: AppConfigFacts,
    private readonly entities: EntityService,
    /** The write entry point with the app-state gate (appStateWrites.ts): this service checks its own callers. */
    private readonly writes: WriteService,
  ) {}

  /** Anyone signed in may read it: the app needs it before it shows anything. */
  appConfig(): ReturnType<typeof datahubAppConfig> {
    return datahubAppConfig(this.facts);
  }

  /** The steps done among `ids`; a step never done is left out, as DataHub answers. */
  async stepStates(caller: Caller, ids: readonly string[]): Promise<StepState[]> {
    this.mayRead(caller);
    const urns = checkedIds(ids).flatMap((id) => {
      const parsed = tryParseUrn(`urn:li:${STEP_TYPE.name}:${id}`);
      return parsed.ok ? [parsed.urn] : [];
    });
    const views = await this.entities.readEntities(urns, [STEP_ASPECT]);
    return urns.flatMap((urn) => {
      const stored = views.get(urn.value)?.aspects.get(STEP_ASPECT)?.value as { properties?: Record<string, unknown> } | undefined;
      if (!stored) return [];
      const properties = Object.entries(stored.properties ?? {}).flatMap(([key, value]) => (typeof value === 'string' ? [{ key, value }] : []));
      return [{ id: urn.id, properties }];
    });
  }

  /** Records steps as done; a person's steps are the ones whose id starts with their URN (as the app names them). */
  async setStepStates(caller: Caller, states: readonly StepState[]): Promise<Written<Array<{ id: string; succeeded: boolean }>>> {
    this.mayRead(caller);
    checkedIds(states.map((s) => s.id));
    let receipt = NOTHING_WRITTEN;
    const results: Array<{ id: string; succeeded: boolean }> = [];
    for (const [i, state] of states.entries()) {
      if (!state.id.startsWith(`${caller.actor}-`)) throw new ForbiddenError(`states[${i}].id ${state.id} is another person's step: a step id starts with the URN of the person who did it (${caller.actor}-)`);
      const properties = Object.fromEntries(state.properties.map((p) => [p.key, p.value]));
      const urn = tryParseUrn(`urn:li:${STEP_TYPE.name}:${state.id}`);
      if (!urn.ok) throw new ValidationError(`states[${i}].id ${state.id} does not make a step urn: ${urn.reason}`, `states[${i}].id`);
      const written = await this.writes.submit(caller, entityPlan(urn.urn, [setChange(STEP_ASPECT, { value: { properties, lastModified: { time: Date.now(), actor: caller.actor } } })], { createsEntity: true }));
      receipt = bothWrites(receipt, written.receipt);
      results.push({ id: state.id, succeeded: true });
    }
    return { result: results, receipt };
  }

  private mayRead(caller: Caller): void {
    if (!scopeAllows(caller.scope, 'read')) throw new ForbiddenError(`the app's step states need a token with read scope; this token has ${caller.scope} scope`);
  }
}

function checkedIds(ids: readonly string[]): readonly string[] {
  if (ids.length > MAX_STEPS) throw new ValidationError(`at most ${MAX_STEPS} steps at a time, got ${ids.length}`, 'ids');
  ids.forEach((id, i) => {
    if (typeof id !== 'string' || id === '' || id.length > LIMITS.nameLength) throw new ValidationError(`ids[${i}] must be a step id of 1 to ${LIMITS.nameLength} characters`, `ids[${i}]`);
  });
  return ids;
}
