/**
 * What saving an edited definition would do, asked of the server's dry run
 * (previewStructuredPropertyDefinition: the write path's own decision) as the form
 * changes, before Save (issue #41: a breaking change was found only after Save): it
 * keeps every stored value, starts a new version that drops them, or breaks values
 * entities hold, which Save refuses without a new version.
 */
import { useEffect, useState } from 'react';
import { DefinitionPreviewDocument, PropertyImpactDocument, type ReplaceStructuredPropertyDefinitionInput } from '../generated/graphql';
import { ApiError, messageOf, request } from '../lib/api';
import { counted, entityTypeLabel } from '../lib/properties';

interface Impact {
  readonly entities: number;
  readonly values: number;
  readonly byEntityType: ReadonlyArray<{ readonly entityType: string; readonly count: number }>;
}

export type Verdict =
  | { readonly kind: 'compatible' }
  | { readonly kind: 'versioned'; readonly drops: Impact }
  | { readonly kind: 'breaking'; readonly changes: readonly string[]; readonly newVersionDrops: Impact };

/** Asked again this long after the last keystroke, so typing does not send a request per character. */
const SETTLE_MS = 400;

function impactText(impact: Impact): string {
  const types = impact.byEntityType.map((t) => `${entityTypeLabel(t.entityType)}: ${t.count}`).join(', ');
  return `${counted(impact.values, 'value')} on ${counted(impact.entities, 'entity', 'entities')}${types ? ` (${types})` : ''}`;
}

/** The verdict the write path gives the definition, with what a new version would drop. */
async function verdictOf(input: ReplaceStructuredPropertyDefinitionInput, currentVersion: string | null): Promise<Verdict> {
  const holders = async () => (await request(PropertyImpactDocument, { urn: input.urn })).structuredProperty?.valueImpact ?? { entities: 0, values: 0, byEntityType: [] };
  try {
    const preview = (await request(DefinitionPreviewDocument, { input })).previewStructuredPropertyDefinition;
    const broken = preview.breaking.filter((b) => b.holders !== 0);
    if (input.version && input.version !== currentVersion) return { kind: 'versioned', drops: preview.impact };
    if (broken.length > 0) return { kind: 'breaking', changes: broken.map((b) => (b.holders ? `${b.change} (${counted(b.holders, 'entity holds', 'entities hold')} values it breaks)` : b.change)), newVersionDrops: await holders() };
    return { kind: 'compatible' };
  } catch (err) {
    // The dry run refuses what Save would refuse, saying why.
    if (err instanceof ApiError && err.reason === 'INCOMPATIBLE_CHANGE') return { kind: 'breaking', changes: [err.message], newVersionDrops: await holders() };
    throw err;
  }
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

export function DefinitionVerdict({ verdict, error, pending, onNewVersion }: { verdict: Verdict | null; error: string | null; pending: boolean; onNewVersion(): void }) {
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
  return (
    <div className="verdict verdict-breaking" role="status">
      <p>
        <strong>Breaking change:</strong> {verdict.changes.join('; ')}.
      </p>
      <p>
        Save will be refused as it stands. A new version would hide and then remove {impactText(verdict.newVersionDrops)}.{' '}
        <button type="button" className="secondary" onClick={onNewVersion}>
          Use a new version
        </button>
      </p>
    </div>
  );
}
