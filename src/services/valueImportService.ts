/**
 * Value imports (a CSV file's rows, from the console or `propgraph values import`;
 * docs/contract.md §3): every row checked in one pass against the definitions and the
 * entities as stored (domain/valueImport.ts), every problem answered at once; a dry run
 * answers them with every change value by value; otherwise, with no problem, every row
 * is written in one write through the one write path: all of them or none.
 */
import { LIMITS } from '../domain/limits.js';
import { effectiveDefinition, type PropertyDefinition } from '../domain/propertyDefinition.js';
import type { DefinitionState, StructuredPropertiesAspect } from '../domain/structuredProperties.js';
import { ValidationError } from '../domain/errors.js';
import { parseUrn, tryParseUrn, type Urn } from '../domain/urn.js';
import { applyImportEdit, checkImport, type ImportProblem, type ImportRow } from '../domain/valueImport.js';
import { valueChanges, type ValueChange } from '../domain/valueHistory.js';
import type { Db } from '../store/database.js';
import { findProperties } from '../store/propertyRegistry.js';
import type { Caller, WriteOptions } from './caller.js';
import type { EntityService } from './entityService.js';
import { NO_CHANGE } from '../domain/writes/entityWrite.js';
import type { WritePlan } from '../domain/writes/plan.js';
import type { WriteService } from './writes/writeService.js';
import { NOTHING_WRITTEN, type Written } from './writeReceipt.js';

export interface ValueImportInput {
  /** The properties of the value columns, in order (URNs). */
  readonly columns: readonly string[];
  readonly rows: readonly ImportRow[];
  readonly dryRun: boolean;
}

export interface ValueImportResult {
  readonly dryRun: boolean;
  readonly written: boolean;
  readonly rows: number;
  /** Rows whose entity's values change. */
  readonly changed: number;
  readonly unchanged: number;
  readonly problems: readonly ImportProblem[];
  /** Every change, row by row, property by property. */
  readonly changes: ReadonlyArray<{ readonly line: number; readonly urn: string; readonly change: ValueChange }>;
}

/** Problems quoted in the refusal of a write with problems (the dry run lists them all). */
const QUOTED_PROBLEMS = 10;

export interface ValueImportService {
  importValues(caller: Caller, input: ValueImportInput, options?: WriteOptions): Promise<Written<ValueImportResult>>;
}

const describe = (p: ImportProblem) => `${p.line === null ? 'header' : `line ${p.line}`}${p.urn ? `: ${p.urn}` : ''}${p.column ? `: ${p.column}` : ''}: ${p.reason}`;

export class DefaultValueImportService implements ValueImportService {
  constructor(private readonly deps: { db: Db; entities: EntityService; writes: WriteService }) {}

  async importValues(caller: Caller, input: ValueImportInput, options: WriteOptions = {}): Promise<Written<ValueImportResult>> {
    if (input.rows.length > LIMITS.importRows) {
      throw new ValidationError(`rows holds ${input.rows.length} rows, more than the limit of ${LIMITS.importRows} in one import; split the file`, 'rows');
    }
    const found = await findProperties(this.deps.db, input.columns);
    const definitions = new Map<string, DefinitionState>(
      [...found].map(([urn, r]) => [urn, { definition: effectiveDefinition(urn, r.definition as unknown as PropertyDefinition), removed: r.removed }]),
    );
    const urns = input.rows.map((r) => tryParseUrn(r.urn.trim())).flatMap((p): Urn[] => (p.ok ? [p.urn] : []));
    const views = await this.deps.entities.readEntities(urns, ['structuredProperties']);
    const stored = new Map([...views].map(([urn, view]) => [urn, view.aspects.get('structuredProperties')?.value as StructuredPropertiesAspect | undefined]));
    const { edits, problems } = checkImport(input.columns, input.rows, definitions, stored);

    const changes = edits.flatMap((e) => valueChanges(stored.get(e.urn) ?? null, applyImportEdit(stored.get(e.urn), e)).map((change) => ({ line: e.line, urn: e.urn, change })));
    const changed = new Set(changes.map((c) => c.urn));
    const changing = edits.filter((e) => changed.has(e.urn));
    const result = (written: boolean): ValueImportResult => ({
      dryRun: input.dryRun,
      written,
      rows: input.rows.length,
      changed: changing.length,
      unchanged: input.rows.length - changing.length - new Set(problems.filter((p) => p.line !== null).map((p) => p.line)).size,
      problems,
      changes,
    });
    if (input.dryRun) return { result: result(false), receipt: NOTHING_WRITTEN };
    if (problems.length > 0) {
      const quoted = problems.slice(0, QUOTED_PROBLEMS).map(describe).join('; ');
      throw new ValidationError(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the import, nothing was written (a dry run lists them all): ${quoted}${problems.length > QUOTED_PROBLEMS ? '; …' : ''}`, 'rows');
    }
    // Applied to the values as they are when written: a change since the check is kept where the file does not name it.
    if (changing.length === 0) return { result: result(true), receipt: NOTHING_WRITTEN };
    if (changing.length > LIMITS.batchEntities) {
      throw new ValidationError(
        `The import changes ${changing.length} entities, more than the ${LIMITS.batchEntities} one write may change; split the file (a dry run says which rows change)`,
        'rows',
      );
    }
    // One plan, all or nothing; each row applied to the values as they are when written,
    // so a change since the check is kept where the file does not name it.
    const plan: WritePlan = {
      entities: changing.map((e) => ({
        urn: parseUrn(e.urn),
        label: { at: `rows[line ${e.line}]`, what: e.urn },
        changes: [
          {
            op: 'compute' as const,
            aspect: 'structuredProperties',
            compute: (current: unknown) => {
              const next = applyImportEdit(current as StructuredPropertiesAspect | undefined, e);
              return valueChanges(current ?? null, next).length === 0 ? NO_CHANGE : next;
            },
          },
        ],
      })),
    };
    const written = await this.deps.writes.submit(caller, plan, options);
    return { result: result(true), receipt: written.receipt };
  }
}
