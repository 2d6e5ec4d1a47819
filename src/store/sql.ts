/**
 * SQL statements as values: a tagged template that keeps the text and its parameters
 * apart (`sql\`SELECT urn FROM entity WHERE urn = ${urn}\``: the URN is the
 * parameter $1, never text), with fragments that nest (a statement built from
 * optional CTEs). Every statement of the store is written with it and run on the pg
 * driver (database.ts).
 */

/** What the driver runs: the text with $1..$n, its parameters, and whether and under which name to prepare it. */
export interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
  /**
   * The prepared statement's name. Absent: a name derived from the text, so that the
   * statement is parsed and planned once per connection (database.ts). Null: not
   * prepared, for statements whose text varies with what they write.
   */
  readonly name?: string | null;
  /** The statement's label in metrics and traces, when neither its name nor its leading keyword says enough (statementTelemetry.ts). */
  readonly operation?: string;
}

/** A piece of SQL: literal parts between parameters (one more part than parameters). */
export class Sql implements Statement {
  private renderedText: string | undefined;

  constructor(
    readonly parts: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  get text(): string {
    this.renderedText ??= this.parts.reduce((text, part, i) => (i === 0 ? part : `${text}$${i}${part}`), '');
    return this.renderedText;
  }

  /** This statement, not prepared (its text varies, so a name would never be reused), labelled `operation`. */
  unprepared(operation: string): Statement {
    return { text: this.text, values: this.values, name: null, operation };
  }
}

/** A statement or fragment; interpolated Sql is inlined, anything else becomes one parameter (an array: one array parameter). */
export function sql(strings: TemplateStringsArray, ...params: unknown[]): Sql {
  const parts: string[] = [strings[0]!];
  const values: unknown[] = [];
  params.forEach((param, i) => {
    const next = strings[i + 1]!;
    if (param instanceof Sql) {
      parts[parts.length - 1] += param.parts[0]!;
      for (let k = 1; k < param.parts.length; k++) parts.push(param.parts[k]!);
      values.push(...param.values);
      parts[parts.length - 1] += next;
    } else {
      values.push(param);
      parts.push(next);
    }
  });
  return new Sql(parts, values);
}

/** The fragments, with `separator` (literal SQL) between them. */
export function join(fragments: readonly Sql[], separator: string): Sql {
  if (fragments.length === 0) return EMPTY;
  return fragments.slice(1).reduce((joined, f) => sql`${joined}${raw(separator)}${f}`, fragments[0]!);
}

/** Literal SQL text, never a parameter: only for text this code writes (column lists, keywords). */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

/**
 * A text constant this code defines (an aspect's name, from its module), written into
 * the statement as a literal rather than a parameter: the planner then sees the value,
 * as a partial index's condition needs (`WHERE aspect = 'structuredProperties'`).
 */
export function literal(text: string): Sql {
  return raw(`'${text.replaceAll("'", "''")}'`);
}

/** Nothing: an optional part of a statement that is left out. */
export const EMPTY: Sql = raw('');
