/**
 * An entity (dataset, schema field, or any other type that holds properties): its
 * property values with inline editing, a dataset's fields with theirs, and its
 * metadata test results with an evaluate button.
 */
import { useRef, useState } from 'react';
import { ErrorMessage, Loading, StatusMessage } from '../components/Messages';
import { HistoryTimeline } from '../components/HistoryTimeline';
import { TestResultsView } from '../components/TestResultsView';
import { StaleValues, type Choice } from '../components/StaleValues';
import { ValueEditor, valueInputs, ValueText } from '../components/ValueEditor';
import {
  ApplicablePropertiesDocument,
  EntityAccessDocument,
  EntityPageDocument,
  EvaluateTestsDocument,
  RemoveValuesDocument,
  SetValuesDocument,
  type EntityPageQuery,
  type HeldValuesFragment,
  type PropertySummaryFragment,
  type PropertyValueInput,
  type ResultsFragment,
  type ValueFragment,
} from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { counted, entityTypeLabel, entityTypeName, typeLabel, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { staleOf, type StaleWrite } from '../lib/staleWrite';
import { entityPath, Link, propertyPath } from '../lib/router';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';

type Entity = NonNullable<EntityPageQuery['entity']>;

const held = (e: Entity): HeldValuesFragment | null => ('structuredProperties' in e ? (e.structuredProperties ?? null) : null);
/** A value as the page shows and compares it. */
const inputText = (v: PropertyValueInput): string => (v.numberValue != null ? String(v.numberValue) : (v.stringValue ?? ''));
const resultsOf = (e: Entity): ResultsFragment | null => ('testResults' in e ? (e.testResults ?? null) : null);

export function EntityPage({ me, urn }: { me: Me; urn: string }) {
  const nameOf = usePropertyLabel();
  const entity = useQuery(EntityPageDocument, { urn });
  // Each save counts; the history below is read again after one.
  const [saves, setSaves] = useState(0);
  if (entity.error) return <ErrorMessage title="The entity could not be loaded.">{entity.error}</ErrorMessage>;
  if (!entity.data) return <Loading what="the entity" />;
  const e = entity.data.entity;
  if (!e) {
    return (
      <>
        <h1>Entity not found</h1>
        <p>
          There is no entity <code>{urn}</code>.
        </p>
      </>
    );
  }
  let title = urn;
  let subtitle = null;
  if ('name' in e && e.name) {
    title = e.name;
    subtitle = `${e.platform.name} · ${e.origin}`;
  } else if ('fieldPath' in e && e.fieldPath) {
    title = e.fieldPath;
    subtitle = (
      <>
        Field of <Link href={entityPath(e.parent.urn)}>{'name' in e.parent ? e.parent.name : e.parent.urn}</Link>
      </>
    );
  }
  return (
    <>
      <h1>{title}</h1>
      <p className="subtitle">
        <span className="badge">{entityTypeLabel(e.type)}</span> {subtitle} <code className="urn">{urn}</code>
      </p>
      <PropertyValues
        me={me}
        entity={e}
        values={held(e)}
        onChange={() => {
          entity.reload();
          setSaves((n) => n + 1);
        }}
      />
      {'schemaMetadata' in e && e.schemaMetadata && (
        <section aria-labelledby="fields-title">
          <h2 id="fields-title">Fields</h2>
          <table>
            <caption className="visually-hidden">Fields of {title} and their property values</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col">Property values</th>
              </tr>
            </thead>
            <tbody>
              {e.schemaMetadata.fields.map((f) => (
                <tr key={f.fieldPath}>
                  <th scope="row">{f.schemaFieldEntity ? <Link href={entityPath(f.schemaFieldEntity.urn)}>{f.fieldPath}</Link> : f.fieldPath}</th>
                  <td>{f.nativeDataType ?? ''}</td>
                  <td>{f.description ?? ''}</td>
                  <td>
                    {(f.schemaFieldEntity?.structuredProperties?.properties ?? []).map((p) => (
                      <div key={p.structuredProperty.urn}>
                        {nameOf(p.structuredProperty.definition)}: {p.values.map((v) => valueText(v)).join(', ')}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <Tests me={me} urn={urn} results={resultsOf(e)} onChange={entity.reload} />
      <HistoryTimeline key={saves} urn={urn} title="History of values" />
    </>
  );
}

function PropertyValues({ me, entity, values, onChange }: { me: Me; entity: Entity; values: HeldValuesFragment | null; onChange(): void }) {
  const nameOf = usePropertyLabel();
  const applicable = useQuery(ApplicablePropertiesDocument, {
    input: { types: ['STRUCTURED_PROPERTY'], query: '*', count: 1000, orFilters: [{ and: [{ field: 'entityTypes', values: [entityTypeName(entity.type)] }] }] },
  });
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ urn: string; message: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // A save refused because someone saved since this page read the entity, and what this person tried to save.
  const [conflict, setConflict] = useState<{ stale: StaleWrite; mine: { property: PropertySummaryFragment; values: string[]; before: string[] } } | null>(null);
  // What the last save stored, shown at once: the page's read that follows it may answer after the user looks.
  const [saved, setSaved] = useState<{ from: HeldValuesFragment | null; values: Map<string, string[]>; version: string | null } | null>(null);
  const fresh = saved && saved.from === values ? saved : null;
  // The values shown when a save answers, which may be newer than those of the render that
  // started it (a read from an earlier save answered meanwhile): that save's answer replaces them.
  const shown = useRef(values);
  shown.current = values;
  // The version every save names (docs/contract.md §14, "Stale writes"): the one this page read, or
  // its own last save's; -1 when the entity had no values at all (only if still none).
  const readVersion = fresh ? fresh.version : values ? (values.aspectVersion ?? null) : '-1';

  const heldBy = new Map((values?.properties ?? []).map((p) => [p.structuredProperty.urn, p]));
  const properties = new Map<string, PropertySummaryFragment>();
  for (const p of values?.properties ?? []) properties.set(p.structuredProperty.urn, p.structuredProperty);
  for (const r of applicable.data?.scrollAcrossEntities?.searchResults ?? []) if ('definition' in r.entity) properties.set(r.entity.urn, r.entity as PropertySummaryFragment);
  const rows = [...properties.values()].filter((p) => !p.status?.removed).sort((a, b) => nameOf(a.definition).localeCompare(nameOf(b.definition)));
  // What the policies let this person do here, property by property; the server still judges every save.
  const access = useQuery(EntityAccessDocument, { urn: entity.urn }, { skip: !me.platformPrivileges.editStructuredPropertyValues });
  const mayEditProperty = (urn: string) => {
    const a = access.data?.entityAccess;
    return a !== undefined && (a.canEditAllProperties || a.editableProperties.includes(urn) || (a.propertiesNotEditable.length > 0 && !a.propertiesNotEditable.includes(urn)));
  };
  const mayEdit = me.platformPrivileges.editStructuredPropertyValues && rows.some((p) => mayEditProperty(p.urn));
  const currentOf = (urn: string) => (fresh ? (fresh.values.get(urn) ?? []) : (heldBy.get(urn)?.values ?? []).map((v) => valueText(v)));

  /** Writes the values chosen (an empty list removes the property) over `version`; the answer's version is the next save's. */
  async function write(choices: readonly Choice[], version: string | null): Promise<{ properties: Map<string, string[]>; version: string | null } | null> {
    const setting = choices.filter((c) => c.values.length > 0);
    const removing = choices.filter((c) => c.values.length === 0);
    let answer: { properties: ReadonlyArray<{ structuredProperty: { urn: string }; values: ReadonlyArray<ValueFragment | null> }>; aspectVersion?: string | null } | null = null;
    let expectedVersion = version;
    if (setting.length > 0) {
      const params = setting.map((c) => {
        const checked = valueInputs(c.property, c.values);
        if ('problem' in checked) throw new Error(`${nameOf(c.property.definition)}: ${checked.problem}`);
        return { structuredPropertyUrn: c.property.urn, values: checked.values };
      });
      answer = (await request(SetValuesDocument, { input: { assetUrn: entity.urn, structuredPropertyInputParams: params, expectedVersion } })).upsertStructuredProperties;
      expectedVersion = answer.aspectVersion ?? null;
    }
    if (removing.length > 0) {
      answer = (await request(RemoveValuesDocument, { input: { assetUrn: entity.urn, structuredPropertyUrns: removing.map((c) => c.property.urn), expectedVersion } })).removeStructuredProperties;
    }
    return answer && { properties: new Map(answer.properties.map((p) => [p.structuredProperty.urn, p.values.map((v) => valueText(v))])), version: answer.aspectVersion ?? null };
  }

  async function save(property: PropertySummaryFragment, choices: readonly Choice[], version: string | null, done: string) {
    setBusy(true);
    setError(null);
    setNotice(null);
    const before = currentOf(property.urn);
    try {
      const stored = await write(choices, version);
      if (stored) setSaved({ from: shown.current, values: stored.properties, version: stored.version });
      setEditing(null);
      setConflict(null);
      setNotice(done);
      onChange();
    } catch (err) {
      const stale = staleOf(err);
      const mine = choices.find((c) => c.property.urn === property.urn);
      if (stale) setEditing(null);
      if (stale) setConflict({ stale, mine: { property, values: [...(mine?.values ?? [])], before: conflict?.mine.property.urn === property.urn ? conflict.mine.before : before } });
      else setError({ urn: property.urn, message: messageOf(err) });
    } finally {
      setBusy(false);
    }
  }

  const saveOne = (property: PropertySummaryFragment, list: PropertyValueInput[] | null) =>
    void save(property, [{ property, values: (list ?? []).map(inputText) }], readVersion, `${nameOf(property.definition)} ${list ? 'saved' : 'removed'}.`);

  function takeTheirs() {
    const property = conflict?.mine.property;
    setConflict(null);
    setEditing(null);
    setSaved(null);
    setNotice(`Your change${property ? ` of ${nameOf(property.definition)}` : ''} was discarded; the page shows what is stored now.`);
    onChange();
  }

  return (
    <section aria-labelledby="values-title">
      <h2 id="values-title">Structured properties</h2>
      {applicable.error && <ErrorMessage>{applicable.error}</ErrorMessage>}
      {notice && <StatusMessage>{notice}</StatusMessage>}
      {conflict && (
        <StaleValues
          stale={conflict.stale}
          mine={conflict.mine}
          properties={properties}
          busy={busy}
          onSave={(choices, version) => void save(conflict.mine.property, choices, version, choices.length ? `Saved over the change made since: ${choices.map((c) => nameOf(c.property.definition)).join(', ')}.` : 'Nothing to write: the values stored now are kept.')}
          onTakeTheirs={takeTheirs}
        />
      )}
      {rows.length === 0 && !applicable.loading && <p>No structured property applies to this {entityTypeLabel(entity.type).toLowerCase()} yet.</p>}
      <table className="values">
        <caption className="visually-hidden">Property values</caption>
        <thead>
          <tr>
            <th scope="col">Property</th>
            <th scope="col">Value</th>
            {mayEdit && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => {
            const current = currentOf(p.urn);
            const locked = p.definition.immutable && current.length > 0;
            const label = nameOf(p.definition);
            return (
              <tr key={p.urn} data-property={p.definition.qualifiedName}>
                <th scope="row">
                  <Link href={propertyPath(p.urn)}>{label}</Link>
                  <span className="hint">
                    {' '}
                    {typeLabel(p.definition.valueType.info.type)}
                    {p.definition.cardinality === 'MULTIPLE' ? ', many values' : ''}
                  </span>
                  {p.definition.description && <p className="hint">{p.definition.description}</p>}
                </th>
                <td>
                  {editing === p.urn ? (
                    <ValueEditor property={p} current={current} busy={busy} onSave={(v) => saveOne(p, v)} onCancel={() => setEditing(null)} />
                  ) : current.length ? (
                    <ul className="value-list">
                      {current.map((v) => (
                        <li key={v}>
                          <ValueText property={p} value={v} />
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="hint">No value</span>
                  )}
                  {error?.urn === p.urn && <ErrorMessage>{error.message}</ErrorMessage>}
                </td>
                {mayEdit && (
                  <td className="row-actions">
                    {!mayEditProperty(p.urn) && <span className="hint">Not yours to edit</span>}
                    {mayEditProperty(p.urn) && editing !== p.urn && !locked && !conflict && (
                      <button type="button" className="secondary" onClick={() => setEditing(p.urn)} aria-label={`Edit ${label}`}>
                        Edit
                      </button>
                    )}
                    {mayEditProperty(p.urn) && editing !== p.urn && current.length > 0 && !locked && !conflict && (
                      <button type="button" className="secondary" disabled={busy} onClick={() => saveOne(p, null)} aria-label={`Remove ${label}`}>
                        Remove
                      </button>
                    )}
                    {locked && <span className="hint">Immutable</span>}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function Tests({ me, urn, results, onChange }: { me: Me; urn: string; results: ResultsFragment | null; onChange(): void }) {
  const [fresh, setFresh] = useState<ResultsFragment | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const push = me.platformPrivileges.pushTestResults;

  async function evaluate() {
    setBusy(true);
    setError(null);
    try {
      setFresh((await request(EvaluateTestsDocument, { input: { urn, push } })).evaluateTests);
      if (push) onChange();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const shown = fresh ?? results;
  return (
    <section aria-labelledby="tests-title">
      <h2 id="tests-title">Metadata tests</h2>
      <button type="button" onClick={() => void evaluate()} disabled={busy}>
        {busy ? 'Evaluating…' : 'Evaluate tests'}
      </button>
      {!push && <p className="hint">Your token may evaluate tests but not store their results.</p>}
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {fresh && <StatusMessage>Evaluated {counted(fresh.passing.length + fresh.failing.length, 'test')}{push ? ' and stored the results' : ''}.</StatusMessage>}
      {shown ? <TestResultsView results={shown} /> : <p>No test results stored for this entity yet.</p>}
    </section>
  );
}
