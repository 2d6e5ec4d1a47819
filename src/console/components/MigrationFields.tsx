/**
 * The migration an edit carries instead of a new version (docs/contract.md §14,
 * "Definitions evolve"): a remap for each allowed value the edit retires (and any other
 * stored value), a conversion to the new value type, dropping only the values the new
 * definition still refuses. The verdict below the form says what it does before Save.
 */
import { newRemap, type FormState, type MigrationForm, type RemapRow } from '../lib/definitionForm';

export function MigrationFields({ migration, allowed, onChange }: { migration: MigrationForm; allowed: FormState['allowed']; onChange(migration: MigrationForm | null): void }) {
  const setMigration = (changes: Partial<MigrationForm>) => onChange({ ...migration, ...changes });
  const setRemap = (index: number, changes: Partial<RemapRow>) => setMigration({ remap: migration.remap.map((r, i) => (i === index ? { ...r, ...changes } : r)) });
  return (
    <fieldset id="pf-migration" tabIndex={-1} className="migration">
      <legend>Migration: keep the values the change breaks</legend>
      {migration.remap.map((r, i) => (
        <div className="allowed-row" key={r.key}>
          <div className="field">
            <label htmlFor={`pf-remap-${i}-from`}>{r.retired ? `Retired value ${i + 1}` : `Stored value ${i + 1}`}</label>
            <input id={`pf-remap-${i}-from`} value={r.from} readOnly={r.retired} onChange={(e) => setRemap(i, { from: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor={`pf-remap-${i}-to`}>{r.retired ? `Retired value ${i + 1} becomes` : `Stored value ${i + 1} becomes`}</label>
            {allowed.length > 0 ? (
              <select id={`pf-remap-${i}-to`} value={r.to} onChange={(e) => setRemap(i, { to: e.target.value })}>
                <option value="">Not remapped</option>
                {allowed.filter((a) => a.value.trim() !== '').map((a) => (
                  <option key={a.key} value={a.value}>
                    {a.value}
                    {a.description ? ` — ${a.description}` : ''}
                  </option>
                ))}
              </select>
            ) : (
              <input id={`pf-remap-${i}-to`} value={r.to} onChange={(e) => setRemap(i, { to: e.target.value })} />
            )}
          </div>
          {!r.retired && (
            <button type="button" className="secondary" onClick={() => setMigration({ remap: migration.remap.filter((_, j) => j !== i) })}>
              Remove remap {i + 1}
            </button>
          )}
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => setMigration({ remap: [...migration.remap, newRemap()] })}>
        Remap another stored value
      </button>
      <label className="inline">
        <input type="checkbox" checked={migration.convert} onChange={(e) => setMigration({ convert: e.target.checked })} /> Convert the values to the new value type (numbers to
        text as written; text to numbers, every one must read as a number)
      </label>
      <label className="inline">
        <input type="checkbox" checked={migration.dropInvalid} onChange={(e) => setMigration({ dropInvalid: e.target.checked })} /> Drop only the values the new definition
        still refuses (needs the privilege to drop values)
      </label>
      <button type="button" className="secondary" onClick={() => onChange(null)}>
        No migration
      </button>
    </fieldset>
  );
}
