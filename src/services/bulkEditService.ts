/**
 * Bulk edits (docs/contract.md §13): set, add or remove one property's values on every
 * entity a search selects (a query and filters over the property's entity types), or on
 * the entities named (the console's multi-select). Everything is checked before anything
 * runs: the property, the values against its definition, the size of the selection
 * (LIMITS.bulkEditEntities) and of what the job keeps (LIMITS.jobInputLength), the
 * caller's queued jobs (LIMITS.unfinishedJobsPerPrincipal). A dry run decides every
 * entity's change through the write path and writes nothing; a run is a job (jobs API:
 * progress, then the counts and the refused entities) that keeps the search, not its
 * hits, and resolves it page by page as it runs (jobs/bulkSelection.ts).
 */
import { checkValueEdit, parseBulkOperation, type BulkOperation, type ValueEdit } from '../domain/bulkEdit.js';
import { NotFoundError, SoftDeletedError, ValidationError } from '../domain/errors.js';
import { BULK_EDIT_VALUES } from '../domain/jobKinds.js';
import { LIMITS } from '../domain/limits.js';
import { effectiveDefinition, type PropertyDefinition } from '../domain/propertyDefinition.js';
import { findEntityType } from '../domain/registry/entityTypes.js';
import { coerceTypedValue, type TypedValue } from '../domain/typedValue.js';
import { validateAssignment } from '../domain/structuredProperties.js';
import { parseUrn } from '../domain/urn.js';
import type { Db } from '../store/database.js';
import { databaseNow } from '../store/changeLog.js';
import { enqueueJob } from '../store/jobs.js';
import type { Logger } from '../platform/logger.js';
import { AuditTrail } from './audit.js';
import { findProperty } from '../store/propertyRegistry.js';
import { inTransaction } from '../store/transaction.js';
import type { Caller } from './caller.js';
import { propertyUrnOf } from './historyService.js';
import { applyValueEdit, type BulkEditPayload, type EntityEdit } from './jobs/bulkEditValues.js';
import { allSelected, selectionSize, tooMany, type BulkSelection, type SelectionDeps } from './jobs/bulkSelection.js';
import { NO_WAIT } from './indexWaiter.js';
import type { AndFilter } from '../domain/searchFilter.js';
import type { SearchService } from './searchService.js';
import type { WriteService } from './writes/writeService.js';

export interface BulkEditInput {
  /** A REST query (docs/search.md) selecting the entities; `*` for all of the types. */
  readonly query?: string | null;
  /** Filters the search's entities must also match (GraphQL's orFilters, as searchAcrossEntities takes them). */
  readonly orFilters?: readonly AndFilter[] | null;
  /** Entity types to search; absent: every searchable type the property applies to. */
  readonly types?: readonly string[] | null;
  /** The entities, named (instead of a query). */
  readonly urns?: readonly string[] | null;
  /** The structured property: urn or qualified name. */
  readonly property: string;
  readonly operation: string;
  /** Typed values (`{"string": ...}`, `{"double": ...}`); a number property takes numeric strings. */
  readonly values?: readonly unknown[] | null;
  readonly dryRun?: boolean | null;
}

export interface BulkEditAnswer {
  readonly dryRun: boolean;
  readonly propertyUrn: string;
  readonly operation: BulkOperation;
  /** Entities selected. */
  readonly entities: number;
  /** The most entities one bulk edit may select. */
  readonly limit: number;
  /** The job applying the edit (null for a dry run). */
  readonly jobId: string | null;
  /** Dry run: entities whose values would change, would not, and could not (with the reason). */
  readonly changed: number;
  readonly unchanged: number;
  readonly refused: ReadonlyArray<{ urn: string; reason: string }>;
  /** Dry run: the first changes, value by value. */
  readonly changes: readonly EntityEdit[];
}

/** Changes and refusals a dry run lists (the counts cover all). */
const LISTED = 100;

export interface BulkEditService {
  /** Validates and either previews (dryRun) or queues the edit. */
  edit(caller: Caller, input: BulkEditInput): Promise<BulkEditAnswer>;
}

export interface BulkEditServiceDeps {
  readonly db: Db;
  readonly writes: WriteService;
  readonly search: SearchService;
  /** Where the audit line of a queued edit goes. */
  readonly log: Logger;
  /** Tells the job worker there is work (else it finds it at its next poll). */
  readonly onJobQueued?: () => void;
}

export class DefaultBulkEditService implements BulkEditService {
  constructor(private readonly deps: BulkEditServiceDeps) {}

  async edit(caller: Caller, input: BulkEditInput): Promise<BulkEditAnswer> {
    const propertyUrn = propertyUrnOf(input.property);
    const property = await findProperty(this.deps.db, propertyUrn);
    if (!property) throw new NotFoundError(`Structured property ${propertyUrn} does not exist`);
    if (property.removed) throw new SoftDeletedError(`Cannot apply a soft deleted Structured Property value: ${propertyUrn}`, 'property');
    const definition = effectiveDefinition(propertyUrn, property.definition as unknown as PropertyDefinition);
    const operation = parseBulkOperation(input.operation);
    const edit: ValueEdit = { propertyUrn, operation, values: canonicalValues(definition, operation, input.values ?? []) };
    checkValueEdit(edit);
    checkInputSize('values', edit.values, LIMITS.aspectJsonLength, 'the values could not fit in one entity\'s structuredProperties');
    const selection = await this.selection(input, definition.entityTypes);
    const limit = LIMITS.bulkEditEntities;
    if (input.dryRun) {
      const urns = await allSelected(this.selectionDeps(), selection, 'query', caller);
      const outcome = await applyValueEdit(this.deps, urns, edit, caller, { dryRun: true });
      return {
        dryRun: true,
        propertyUrn,
        operation,
        entities: urns.length,
        limit,
        jobId: null,
        changed: outcome.changed.length,
        unchanged: outcome.unchanged.length,
        refused: outcome.refused.slice(0, LISTED),
        changes: outcome.changed.slice(0, LISTED),
      };
    }
    const entities = await selectionSize(this.selectionDeps(), selection, caller);
    if (entities > limit) throw tooMany(entities, 'urns' in selection ? 'urns' : 'query');
    const payload: BulkEditPayload = {
      propertyUrn,
      operation,
      values: [...edit.values],
      actor: caller.actor,
      scope: caller.scope,
      via: caller.via ?? null,
      groups: [...(caller.groups ?? [])],
      urns: 'urns' in selection ? [...selection.urns] : null,
      selectedAt: 'urns' in selection ? selection.selectedAt : null,
      query: 'query' in selection ? selection.query : null,
      types: 'query' in selection ? [...selection.types] : null,
      orFilters: 'query' in selection && selection.orFilters ? [...selection.orFilters] : null,
      entities,
    };
    checkInputSize('urns', payload, LIMITS.jobInputLength, 'a bulk edit keeps its values and the entities it names until it is done');
    const { id } = await inTransaction(this.deps.db, (tx) =>
      enqueueJob(tx, { kind: BULK_EDIT_VALUES, payload: payload as unknown as Record<string, unknown>, owner: caller.actor, quota: LIMITS.unfinishedJobsPerPrincipal }),
    );
    new AuditTrail(this.deps.log).record({ action: 'values.bulkEdit', actor: caller.actor, target: propertyUrn, outcome: 'done', detail: { job: String(id), operation, entities } });
    this.deps.onJobQueued?.();
    return { dryRun: false, propertyUrn, operation, entities, limit, jobId: String(id), changed: 0, unchanged: 0, refused: [], changes: [] };
  }

  private selectionDeps(): SelectionDeps {
    return { db: this.deps.db, search: this.deps.search, indexWaiter: NO_WAIT };
  }

  /** The selection as the job keeps it: the URNs named (with the moment it was fixed), or the search. */
  private async selection(input: BulkEditInput, propertyTypes: readonly string[]): Promise<BulkSelection> {
    const limit = LIMITS.bulkEditEntities;
    if (input.urns) {
      if (input.query || input.orFilters?.length) throw new ValidationError('Give either a search (query, orFilters) or urns, not both', 'urns');
      const urns = [...new Set(input.urns.map((u) => parseUrn(u).value))];
      if (urns.length > limit) throw tooMany(urns.length, 'urns');
      return { urns, selectedAt: (await databaseNow(this.deps.db)).toISOString() };
    }
    const query = input.query?.trim() || (input.orFilters?.length ? '*' : '');
    if (query === '') throw new ValidationError('Select the entities with query (a search, e.g. platform:hive, or * for all), orFilters, or urns', 'query');
    const types = input.types?.length ? [...input.types] : propertyTypes.filter((t) => findEntityType(t)?.searchable);
    return { query, types, orFilters: input.orFilters?.length ? [...input.orFilters] : null };
  }
}

/** Refuses, naming the field, what would make a job's kept inputs larger than `max` characters of JSON. */
function checkInputSize(field: string, value: unknown, max: number, why: string): void {
  const length = JSON.stringify(value).length;
  if (length > max) throw new ValidationError(`${field} holds ${length} characters as JSON, more than the ${max} allowed (${why}); split the edit`, field);
}

/** The values in the definition's canonical form, checked as a write checks them (type, allowed values, cardinality). */
function canonicalValues(definition: ReturnType<typeof effectiveDefinition>, operation: BulkOperation, raw: readonly unknown[]): TypedValue[] {
  const typed = raw.map((v) => (typeof v === 'string' ? { string: v } : typeof v === 'number' ? { double: v } : v));
  if (operation === 'remove') {
    return typed.map((v, i) => {
      const coerced = coerceTypedValue(v, definition.valueType);
      if (!coerced.ok) throw new ValidationError(`values[${i}] ${coerced.reason}`, `values[${i}]`);
      return coerced.value;
    });
  }
  if (typed.length === 0) return [];
  const targetType = definition.entityTypes[0]!;
  const definitions = new Map([[definition.urn, { definition, removed: false }]]);
  return validateAssignment(definition.urn, typed, { targetType, definitions, current: new Map() });
}
