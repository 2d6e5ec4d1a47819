/**
 * What saving an edited definition would do, asked of the server's dry run
 * (previewStructuredPropertyDefinition: the write path's own decision) as the form
 * changes, before Save (issue #41: a breaking change was found only after Save): it
 * keeps every stored value, starts a new version that drops them, breaks values
 * entities hold, or keeps them through the migration chosen, rule by rule with
 * examples (issue #39: retiring one value wiped every value of the property).
 */
import { useEffect, useState } from 'react';
import { DefinitionPreviewDocument, PropertyImpactDocument, type MigrationEffectFragment, type ReplaceStructuredPropertyDefinitionInput } from '../generated/graphql';
import { ApiError, messageOf, request } from '../lib/api';
import { counted, entityTypeLabel, valueText } from '../lib/properties';
import { entityPath, Link } from '../lib/router';

interface Impact {
  readonly entities: number;
  readonly values: number;
  readonly byEntityType: ReadonlyArray<{ readonly entityType: string; readonly count: number }>;
}

export type Verdict =
  | { readonly kind: 'compatible' }
  | { readonly kind: 'versioned'; readonly drops: Impact }
  | { readonly kind: 'breaking'; readonly changes: readonly string[]; readonly newVersionDrops: Impact }
  | { readonly kind: 'migrated'; readonly changes: readonly string[]; readonly effect: MigrationEffectFragment }
  | { readonly kind: 'migrationRefused'; readonly changes: readonly string[]; readonly reason: string; readonly newVersionDrops: Impact };

/** Asked again this long after the last keystroke, so typing does not send a request per character. */
const SETTLE_MS = 400;

function impactText(impact: Impact): string {
  const types = impact.byEntityType.map((t) => `${entityTypeLabel(t.entityType)}: ${t.count}`).join(', ');
  return `${counted(impact.values, 'value')} on ${counted(impact.entities, 'entity', 'entities')}${types ? ` (${types})` : ''}`;
}

/** The verdict the write path gives the definition, with what a new version would drop. */
async function verdictOf(input: ReplaceStructuredPropertyDefinitionInput, currentVersion: string | null): Promise<Verdict> {
  const holders = async () => (await request(PropertyImpactDocument, { urn: input.urn })).structuredProperty?.valueImpact ?? { entities: 0, values: 0, byEntityType: [] };
  // The breaking changes alone (the migration left out), for when the migration is refused.
  const breakingOf = async () => {
    const { migration: _migration, ...plain } = input;
    const preview = (await request(DefinitionPreviewDocument, { input: plain })).previewStructuredPropertyDefinition;
    return changeTexts(preview.breaking);
  };
  try {
    const preview = (await request(DefinitionPreviewDocument, { input })).previewStructuredPropertyDefinition;
    const changes = changeTexts(preview.breaking);
    if (input.version && input.version !== currentVersion) return { kind: 'versioned', drops: preview.impact };
    if (changes.length > 0 && input.migration && preview.migration) return { kind: 'migrated', changes, effect: preview.migration };
    if (changes.length > 0) return { kind: 'breaking', changes, newVersionDrops: await holders() };
    return { kind: 'compatible' };
  } catch (err) {
    // The dry run refuses what Save would refuse, saying why.
    if (err instanceof ApiError && err.reason === 'INCOMPATIBLE_CHANGE') return { kind: 'breaking', changes: [err.message], newVersionDrops: await holders() };
    if (err instanceof ApiError && err.extensions.field === 'migration' && input.migration) {
      return { kind: 'migrationRefused', changes: await breakingOf().catch(() => []), reason: err.message, newVersionDrops: await holders() };
    }
    throw err;
  }
}

function changeTexts(breaking: ReadonlyArray<{ change: string; holders?: number | null }>): string[] {
  return breaking.filter((b) => b.holders !== 0).map((b) => (b.holders ? `${b.change} (${counted(b.holders, 'entity holds', 'entities hold')} values it breaks)` : b.change));
}

export function useVerdict(input: ReplaceStructuredPropertyDefinitionInput | null, currentVersion: string | null): { verdict: Verdict | null; error: string | null; pending: boolean } {
  const key = input ? JSON.stringify(input) : '';
  const [state, setState] = useState<{ key: string; verdict: Verdict | null; error: string | null }>({ key: '', verdict: null, error: null });
  useEffect(() => {
    if (!key) return;
    let current = true;
    const timer = setTimeout(() => {
      verdictOf(JSON.parse(key) as ReplaceStructuredPropertyDefinitionInput, currentVersion)
        .then((verdict) => current && setState({ key, verdict, error: null }))
        .catch((err: unknown) => current && setState({ key, verdict: null, error: messageOf(err) }));
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key, currentVersion]);
  const fresh = state.key === key;
  return { verdict: fresh ? state.verdict : null, error: fresh ? state.error : null, pending: Boolean(key) && !fresh };
}

interface Props {
  readonly verdict: Verdict | null;
  readonly error: string | null;
  readonly pending: boolean;
  /** Whether the form carries a migration now. */
  readonly migrating: boolean;
  onNewVersion(): void;
  onMigrate(): void;
}

const valuesText = (values: ReadonlyArray<Parameters<typeof valueText>[0]> | null | undefined) => (values == null ? 'dropped' : values.length === 0 ? 'no value' : values.map(valueText).join(', '));

/** What the migration does, rule by rule, with the entities it changes before → after. */
function MigrationEffectView({ effect }: { effect: MigrationEffectFragment }) {
  return (
    <table className="migration-effect">
      <caption>What the migration does, rule by rule</caption>
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Entities</th>
          <th scope="col">Values</th>
          <th scope="col">For example</th>
        </tr>
      </thead>
      <tbody>
        {effect.rules.map((r) => (
          <tr key={r.rule}>
            <th scope="row">{r.rule}</th>
            <td>{r.entities}</td>
            <td>{r.values}</td>
            <td>
              <ul className="examples">
                {r.examples.slice(0, 3).map((e) => (
                  <li key={e.urn}>
                    <Link href={entityPath(e.urn)}>{e.urn}</Link>: {valuesText(e.before)} → {valuesText(e.after)}
                  </li>
                ))}
              </ul>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function DefinitionVerdict({ verdict, error, pending, migrating, onNewVersion, onMigrate }: Props) {
  if (pending) return <p className="verdict" role="status">Checking what saving would change…</p>;
  if (error) return <p className="verdict field-error" role="status">Saving this definition would be refused: {error}</p>;
  if (!verdict) return null;
  if (verdict.kind === 'compatible') {
    return (
      <p className="verdict verdict-ok" role="status">
        Compatible: saving keeps every stored value.
      </p>
    );
  }
  if (verdict.kind === 'versioned') {
    return (
      <p className="verdict verdict-warn" role="status">
        <strong>New version:</strong> saving hides at once, and then removes, {verdict.drops.values === 0 ? 'no value (the property holds none)' : impactText(verdict.drops)} written under the current version.
      </p>
    );
  }
  if (verdict.kind === 'migrated') {
    const e = verdict.effect;
    return (
      <div className="verdict verdict-warn" role="status">
        <p>
          <strong>Breaking change:</strong> {verdict.changes.join('; ')}.
        </p>
        <p>
          <strong>Migration:</strong> saving keeps the values: it changes the values of {counted(e.changed, 'entity', 'entities')} of the {e.holders} holding any. Every read shows them
          migrated from the moment it is saved; a background job then rewrites each entity, and each change is in its history.
        </p>
        <MigrationEffectView effect={e} />
      </div>
    );
  }
  return (
    <div className="verdict verdict-breaking" role="status">
      <p>
        <strong>Breaking change:</strong> {verdict.changes.join('; ')}.
      </p>
      {verdict.kind === 'migrationRefused' && (
        <p>
          <strong>The migration does not keep every value yet:</strong> {verdict.reason}
        </p>
      )}
      <p>
        Save will be refused as it stands. A new version would hide and then remove {impactText(verdict.newVersionDrops)}.{' '}
        <button type="button" className="secondary" onClick={onNewVersion}>
          Use a new version
        </button>
      </p>
      {!migrating && (
        <p>
          Or keep the values: migrate them to the new definition (remap each retired value to another, convert them to the new type, or drop only the values it refuses).{' '}
          <button type="button" className="secondary" onClick={onMigrate}>
            Migrate the values
          </button>
        </p>
      )}
    </div>
  );
}
