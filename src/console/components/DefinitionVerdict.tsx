/**
 * What saving an edited definition would do, asked of the server's dry run
 * (structuredPropertyDefinitionPreview) as the form changes, before Save: compatible, a new
 * version that drops values, or a breaking change refused as it stands (issue #41: it was
 * found only after Save).
 */
import { useEffect, useState } from 'react';
import { DefinitionPreviewDocument, type DefinitionPreviewQuery, type ReplaceStructuredPropertyDefinitionInput } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { counted, entityTypeLabel } from '../lib/properties';

type Preview = DefinitionPreviewQuery['structuredPropertyDefinitionPreview'];

/** Asked again this long after the last keystroke, so typing does not send a request per character. */
const SETTLE_MS = 400;

function impactText(impact: Preview['impact']): string {
  const types = impact.byEntityType.map((t) => `${entityTypeLabel(t.entityType)}: ${t.count}`).join(', ');
  return `${counted(impact.values, 'value')} on ${counted(impact.entities, 'entity', 'entities')}${types ? ` (${types})` : ''}`;
}

export function usePreview(input: ReplaceStructuredPropertyDefinitionInput | null): { preview: Preview | null; error: string | null; pending: boolean } {
  const key = input ? JSON.stringify(input) : '';
  const [state, setState] = useState<{ key: string; preview: Preview | null; error: string | null }>({ key: '', preview: null, error: null });
  useEffect(() => {
    if (!key) return;
    let current = true;
    const timer = setTimeout(() => {
      request(DefinitionPreviewDocument, { input: JSON.parse(key) as ReplaceStructuredPropertyDefinitionInput })
        .then((data) => current && setState({ key, preview: data.structuredPropertyDefinitionPreview, error: null }))
        .catch((err: unknown) => current && setState({ key, preview: null, error: messageOf(err) }));
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key]);
  const fresh = state.key === key;
  return { preview: fresh ? state.preview : null, error: fresh ? state.error : null, pending: Boolean(key) && !fresh };
}

export function DefinitionVerdict({ preview, error, pending, onNewVersion }: { preview: Preview | null; error: string | null; pending: boolean; onNewVersion(): void }) {
  if (pending) return <p className="verdict" role="status">Checking what saving would change…</p>;
  if (error) return <p className="verdict field-error" role="status">The server cannot judge this definition yet: {error}</p>;
  if (!preview) return null;
  if (preview.verdict === 'COMPATIBLE') {
    return (
      <p className="verdict verdict-ok" role="status">
        Compatible: saving keeps every stored value.
      </p>
    );
  }
  if (preview.verdict === 'VERSIONED') {
    return (
      <div className="verdict verdict-warn" role="status">
        <p>
          <strong>New version:</strong> saving hides at once, and then removes, {impactText(preview.impact)} written under the current version.
        </p>
        {preview.message && <p>{preview.message}</p>}
      </div>
    );
  }
  return (
    <div className="verdict verdict-breaking" role="status">
      <p>
        <strong>Breaking change:</strong> {preview.message}
      </p>
      <p>
        Save will be refused as it stands. A new version would hide and then remove {impactText(preview.impact)}.{' '}
        <button type="button" className="secondary" onClick={onNewVersion}>
          Use a new version
        </button>
      </p>
    </div>
  );
}
