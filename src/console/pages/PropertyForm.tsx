/**
 * Create or edit a property. The form checks the definition with the server's rules
 * before sending; what only the server can judge (a breaking change against the stored
 * definition, a name already taken) comes back as the server's message, with what to do.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { DefinitionVerdict, useVerdict } from '../components/DefinitionVerdict';
import { MigrationProgress } from '../components/JobProgress';
import { MigrationFields } from '../components/MigrationFields';
import { ErrorMessage, Loading, StatusMessage } from '../components/Messages';
import { StaleFields } from '../components/StaleFields';
import { CreatePropertyDocument, PropertyDocument, ReplacePropertyDocument } from '../generated/graphql';
import { ApiError, messageOf, request } from '../lib/api';
import {
  aspectOf,
  checkForm,
  DEFINITION_FIELDS,
  definitionFieldText,
  createInput,
  EMPTY_FORM,
  formOf,
  newRow,
  replaceInput,
  SETTINGS,
  startMigration,
  withFieldsOf,
  type FieldError,
  type FormState,
} from '../lib/definitionForm';
import { ASSET_TYPES, entityTypeLabel, URN_TARGET_TYPES, versionNow, VALUE_TYPES } from '../lib/properties';
import { sameDisplayName, usePropertyNames } from '../lib/propertyNames';
import { Link, navigate, propertyPath } from '../lib/router';
import { staleFields, staleOf, type StaleWrite } from '../lib/staleWrite';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';

export function PropertyForm({ me, urn }: { me: Me; urn: string | null }) {
  const existing = useQuery(PropertyDocument, { urn: urn ?? '' }, { skip: urn === null });
  if (!me.platformPrivileges.manageStructuredProperties) {
    return <ErrorMessage title="Not allowed.">Your token's scope does not allow changing properties; a write or admin token does.</ErrorMessage>;
  }
  if (urn === null) return <DefinitionForm urn={null} initial={EMPTY_FORM} />;
  if (existing.error) return <ErrorMessage>{existing.error}</ErrorMessage>;
  const entity = existing.data?.structuredProperty;
  if (!existing.data) return <Loading what="the property" />;
  if (!entity) return <ErrorMessage>There is no structured property {urn}.</ErrorMessage>;
  if (entity.migrating) {
    return (
      <>
        <h1>Edit {entity.definition.displayName || entity.definition.qualifiedName}</h1>
        <StatusMessage>A migration of its values is in progress: the definition can change again once it ends.</StatusMessage>
        <MigrationProgress propertyUrn={urn} onDone={existing.reload} />
      </>
    );
  }
  const stored = formOf(entity.definition, entity.settings);
  // A new reading of the property (after "Take theirs") starts the form again from it.
  return <DefinitionForm key={entity.definitionAspectVersion ?? ''} urn={urn} initial={stored} stored={stored} read={entity.definitionAspectVersion ?? null} currentVersion={entity.definition.version} onReload={existing.reload} />;
}

interface DefinitionFormProps {
  readonly urn: string | null;
  readonly initial: FormState;
  /** The definition as stored when the form opened (what an edit is judged against). */
  readonly stored?: FormState;
  /** Its definitionAspectVersion as read: every save names it. */
  readonly read?: string | null;
  readonly currentVersion?: string | null;
  onReload?(): void;
}

function DefinitionForm({ urn, initial, stored: storedAtOpen, read, currentVersion, onReload }: DefinitionFormProps) {
  const [form, setForm] = useState<FormState>(initial);
  // What the form is judged against and the version its save names: as opened, or as stored when merged after a stale save.
  const [base, setBase] = useState<{ stored: FormState | undefined; version: string | null }>({ stored: storedAtOpen, version: read ?? null });
  const [problem, setProblem] = useState<FieldError | null>(null);
  const [refusal, setRefusal] = useState<{ message: string; breaking: boolean } | null>(null);
  const [stale, setStale] = useState<StaleWrite | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const alertRef = useRef<HTMLDivElement>(null);
  const editing = urn !== null;
  const names = usePropertyNames();
  const namesakes = sameDisplayName(names.names, form.displayName, form.qualifiedName.trim());
  const readAs = { version: base.version, valueType: base.stored?.valueType ?? form.valueType };
  // The verdict is asked for only of a definition the form's own checks accept; it judges the
  // change, not its version as read (a change saved since is told at Save, with the choice it needs).
  const verdict = useVerdict(editing && checkForm(form) === null ? replaceInput(urn, form, { valueType: readAs.valueType }) : null, currentVersion ?? null);
  const useNewVersion = () => {
    setForm((f) => ({ ...f, version: versionNow(), migration: null }));
    document.getElementById('pf-version')?.focus();
  };
  const migrate = () => {
    setForm((f) => ({ ...f, version: '', migration: startMigration(base.stored ?? f, f) }));
    setTimeout(() => document.getElementById('pf-migration')?.focus());
  };

  useEffect(() => {
    if (problem) document.getElementById(`pf-${problem.control}`)?.focus();
  }, [problem]);
  useEffect(() => {
    if (refusal) alertRef.current?.focus();
  }, [refusal]);

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value }));
  const toggle = (key: 'entityTypes' | 'allowedTypes', name: string, on: boolean) =>
    setForm((f) => ({ ...f, [key]: on ? [...f[key], name] : f[key].filter((t) => t !== name) }));
  const setRow = (index: number, changes: Partial<{ value: string; description: string }>) =>
    setForm((f) => ({ ...f, allowed: f.allowed.map((r, i) => (i === index ? { ...r, ...changes } : r)) }));

  async function save(version: string | null) {
    setRefusal(null);
    setNotice(null);
    const found = checkForm(form);
    setProblem(found);
    if (found) return;
    setBusy(true);
    try {
      const input = editing ? replaceInput(urn, form, { ...readAs, version }) : null;
      const target = input
        ? (await request(ReplacePropertyDocument, { input })).replaceStructuredPropertyDefinition.urn
        : (await request(CreatePropertyDocument, { input: createInput(form) })).createStructuredProperty.urn;
      names.refresh();
      navigate(`${propertyPath(target)}${input?.migration ? '?migration=started' : ''}`);
    } catch (err) {
      const refused = staleOf(err);
      if (refused) {
        setStale(refused);
      } else {
        setStale(null);
        setRefusal({ message: messageOf(err), breaking: err instanceof ApiError && err.reason === 'INCOMPATIBLE_CHANGE' });
      }
      setBusy(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void save(base.version);
  }

  /** The stored definition now, for a merge: the form keeps what this person chose of theirs. */
  async function merge(theirFields: readonly string[]) {
    if (!urn || !stale) return;
    setBusy(true);
    try {
      const now = (await request(PropertyDocument, { urn })).structuredProperty;
      if (!now) throw new Error(`There is no structured property ${urn} any more.`);
      const theirs = formOf(now.definition, now.settings);
      setForm((f) => withFieldsOf({ ...f, version: '', migration: null }, theirs, theirFields));
      setBase({ stored: theirs, version: now.definitionAspectVersion ?? stale.currentVersion });
      setStale(null);
      setNotice(`Merged: ${theirFields.length ? `their ${theirFields.join(', ')} and ` : ''}the rest of yours. Check the form and what saving would do, then save.`);
    } catch (err) {
      setRefusal({ message: messageOf(err), breaking: false });
    } finally {
      setBusy(false);
    }
  }

  const errorFor = (control: string) => (problem?.control === control ? problem.message : null);
  const described = (control: string) => (problem?.control === control ? { 'aria-invalid': true as const, 'aria-describedby': `pf-${control}-error` } : {});
  const FieldProblem = ({ control }: { control: string }) =>
    errorFor(control) ? (
      <p className="field-error" id={`pf-${control}-error`}>
        {errorFor(control)}
      </p>
    ) : null;

  return (
    <>
      <h1>{editing ? `Edit ${form.displayName || form.qualifiedName}` : 'New structured property'}</h1>
      {problem && (
        <ErrorMessage title="Check the form.">
          {problem.message}
        </ErrorMessage>
      )}
      {notice && <StatusMessage>{notice}</StatusMessage>}
      {stale && (
        <StaleFields
          stale={stale}
          what="property"
          rows={staleFields(stale, DEFINITION_FIELDS.map((f) => ({ ...f, choosable: f.keys.length > 0 })), aspectOf(form), definitionFieldText)}
          busy={busy}
          onKeepMine={() => {
            setBase((b) => ({ ...b, version: stale.currentVersion }));
            void save(stale.currentVersion);
          }}
          onTakeTheirs={() => onReload?.()}
          onMerge={(fields) => void merge(fields)}
        />
      )}
      {refusal && (
        <div className="message message-error" role="alert" tabIndex={-1} ref={alertRef}>
          <strong>The server refused the change.</strong> {refusal.message}
          {refusal.breaking && (
            <p>
              This is a breaking change. To apply it anyway, give the definition a new version, later than {currentVersion ?? 'the current one'}: values written
              under the current version are then hidden at once and removed by a background job.{' '}
              <button type="button" onClick={useNewVersion}>
                Use a new version
              </button>
            </p>
          )}
        </div>
      )}
      <form className="property-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="pf-qualifiedName">Qualified name</label>
          <input id="pf-qualifiedName" value={form.qualifiedName} readOnly={editing} onChange={(e) => set('qualifiedName', e.target.value)} aria-describedby="pf-qualifiedName-hint" {...described('qualifiedName')} />
          <p className="hint" id="pf-qualifiedName-hint">
            Dot-separated, no spaces, e.g. io.acme.privacy.retentionDays. It cannot change later.
          </p>
          <FieldProblem control="qualifiedName" />
        </div>
        <div className="field">
          <label htmlFor="pf-displayName">Display name</label>
          <input
            id="pf-displayName"
            value={form.displayName}
            onChange={(e) => set('displayName', e.target.value)}
            {...(namesakes.length > 0 ? { 'aria-describedby': 'pf-displayName-hint' } : {})}
            {...described('displayName')}
          />
          {namesakes.length > 0 && (
            <p className="hint hint-warn" id="pf-displayName-hint" role="status">
              “{form.displayName.trim()}” is already the display name of {namesakes.map((n) => n.qualifiedName).join(', ')}. Both will be shown with their qualified names beside it, e.g. “{form.displayName.trim()} ({form.qualifiedName.trim() || 'this property'})”; a name of its own is clearer.
            </p>
          )}
          <FieldProblem control="displayName" />
        </div>
        <div className="field">
          <label htmlFor="pf-description">Description</label>
          <textarea id="pf-description" rows={3} value={form.description} onChange={(e) => set('description', e.target.value)} {...described('description')} />
          <FieldProblem control="description" />
        </div>
        <div className="field">
          <label htmlFor="pf-valueType">Value type</label>
          <select id="pf-valueType" value={form.valueType} onChange={(e) => set('valueType', e.target.value)} {...described('valueType')}>
            {VALUE_TYPES.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
          <FieldProblem control="valueType" />
        </div>
        <fieldset>
          <legend>Cardinality</legend>
          {(['SINGLE', 'MULTIPLE'] as const).map((c) => (
            <label key={c} className="inline">
              <input type="radio" name="cardinality" value={c} checked={form.cardinality === c} onChange={() => set('cardinality', c)} /> {c === 'SINGLE' ? 'One value per entity' : 'Many values per entity'}
            </label>
          ))}
        </fieldset>
        <fieldset id="pf-entityTypes" tabIndex={-1} {...described('entityTypes')}>
          <legend>Entity types that can hold a value</legend>
          <div className="checkbox-grid">
            {ASSET_TYPES.map((t) => (
              <label key={t.name} className="inline">
                <input type="checkbox" checked={form.entityTypes.includes(t.name)} onChange={(e) => toggle('entityTypes', t.name, e.target.checked)} /> {entityTypeLabel(t.graphql)}
              </label>
            ))}
          </div>
          <FieldProblem control="entityTypes" />
        </fieldset>
        {form.valueType === 'urn' && (
          <fieldset id="pf-allowedTypes" tabIndex={-1} {...described('allowedTypes')}>
            <legend>Values may name entities of type (none checked: any)</legend>
            <div className="checkbox-grid">
              {URN_TARGET_TYPES.map((t) => (
                <label key={t.name} className="inline">
                  <input type="checkbox" checked={form.allowedTypes.includes(t.name)} onChange={(e) => toggle('allowedTypes', t.name, e.target.checked)} /> {entityTypeLabel(t.graphql)}
                </label>
              ))}
            </div>
            <FieldProblem control="allowedTypes" />
          </fieldset>
        )}
        <fieldset>
          <legend>Allowed values (none: any value of the type)</legend>
          {form.allowed.map((row, i) => (
            <div className="allowed-row" key={row.key}>
              <div className="field">
                <label htmlFor={`pf-allowed-${i}-value`}>Value {i + 1}</label>
                <input
                  id={`pf-allowed-${i}-value`}
                  type={form.valueType === 'number' ? 'number' : form.valueType === 'date' ? 'date' : 'text'}
                  step="any"
                  value={row.value}
                  onChange={(e) => setRow(i, { value: e.target.value })}
                  {...described(`allowed-${i}-value`)}
                />
                <FieldProblem control={`allowed-${i}-value`} />
              </div>
              <div className="field">
                <label htmlFor={`pf-allowed-${i}-description`}>Description of value {i + 1}</label>
                <input id={`pf-allowed-${i}-description`} value={row.description} onChange={(e) => setRow(i, { description: e.target.value })} />
              </div>
              <button type="button" className="secondary" onClick={() => set('allowed', form.allowed.filter((_, j) => j !== i))}>
                Remove value {i + 1}
              </button>
            </div>
          ))}
          <button type="button" className="secondary" onClick={() => set('allowed', [...form.allowed, newRow()])}>
            Add an allowed value
          </button>
        </fieldset>
        <fieldset>
          <legend>Options</legend>
          <label className="inline">
            <input type="checkbox" checked={form.immutable} onChange={(e) => set('immutable', e.target.checked)} /> Values cannot change once set
          </label>
        </fieldset>
        <fieldset>
          <legend>Display</legend>
          {SETTINGS.map((x) => (
            <label key={x.key} className="inline">
              <input type="checkbox" checked={form.settings[x.key]} onChange={(e) => set('settings', { ...form.settings, [x.key]: e.target.checked })} /> {x.label}
            </label>
          ))}
        </fieldset>
        {editing && (
          <div className="field">
            <label htmlFor="pf-version">New version</label>
            <input id="pf-version" inputMode="numeric" value={form.version} onChange={(e) => set('version', e.target.value)} aria-describedby="pf-version-hint" {...described('version')} />
            <p className="hint" id="pf-version-hint">
              Only for breaking changes: 14 digits (yyyyMMddhhmmss), later than the current version ({currentVersion ?? 'none'}).
            </p>
            <FieldProblem control="version" />
          </div>
        )}
        {editing && form.migration && <MigrationFields migration={form.migration} allowed={form.allowed} onChange={(migration) => set('migration', migration)} />}
        {editing && <DefinitionVerdict {...verdict} migrating={form.migration !== null} onNewVersion={useNewVersion} onMigrate={migrate} />}
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : editing ? 'Save changes' : 'Create property'}
          </button>
          <Link className="button secondary" href={editing ? propertyPath(urn) : '/properties'}>
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}
