/**
 * One property: its definition, how many entities hold a value and how the values are
 * spread, its history; edit, soft delete, restore and hard delete (with the cleanup
 * job's progress), as the policies let this person act on this property (entityAccess;
 * the server still judges every change).
 */
import { valueTypeOfStd } from '../../domain/registry/valueTypes.js';
import { useState } from 'react';
import { CleanupProgress, MigrationProgress } from '../components/JobProgress';
import { HistoryTimeline } from '../components/HistoryTimeline';
import { ErrorMessage, Loading, StatusMessage } from '../components/Messages';
import { dateHistogram, numberHistogram, ValueChart, type Bucket } from '../components/ValueChart';
import {
  EntityAccessDocument,
  HardDeletePropertyDocument,
  PropertyDistributionDocument,
  PropertyDocument,
  PropertyHoldersDocument,
  PropertyImpactDocument,
  RestorePropertyDocument,
  SoftDeletePropertyDocument,
  type DefinitionFragment,
} from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { counted, entityTypeLabel, facetValueText, formatTime, holderTypes, searchField, typeLabel, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { SETTINGS } from '../lib/definitionForm';
import { Link, propertyPath } from '../lib/router';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';

export function PropertyPage({ me, urn, followMigration = false }: { me: Me; urn: string; followMigration?: boolean }) {
  const nameOf = usePropertyLabel();
  const property = useQuery(PropertyDocument, { urn });
  const privileges = me.platformPrivileges;
  // What the policies let this person do to this property (a policy may name the properties it covers).
  const access = useQuery(EntityAccessDocument, { urn }, { skip: !privileges.manageStructuredProperties && !privileges.deleteStructuredProperties });
  const mayManage = privileges.manageStructuredProperties && access.data?.entityAccess.canEdit === true;
  const mayDelete = privileges.deleteStructuredProperties && access.data?.entityAccess.canDelete === true;
  // Each change of the property counts; its timeline is read again after one.
  const [changes, setChanges] = useState(0);
  // A migration seen (started from the form, or running) stays shown to its end.
  const [followed, setFollowed] = useState(followMigration);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [hardDeleted, setHardDeleted] = useState(false);
  const [busy, setBusy] = useState(false);

  if (hardDeleted) {
    return (
      <>
        <h1>Property deleted</h1>
        <StatusMessage>
          <code>{urn}</code> is deleted: its definition is gone, and a background job removes its values from every entity.
        </StatusMessage>
        <CleanupProgress propertyUrn={urn} />
        <p>
          <Link href="/properties">Back to the properties</Link>
        </p>
        <HistoryTimeline urn={urn} title="History" />
      </>
    );
  }
  if (property.error) return <ErrorMessage title="The property could not be loaded.">{property.error}</ErrorMessage>;
  if (!property.data) return <Loading what="the property" />;
  const entity = property.data.structuredProperty;
  if (!entity) {
    return (
      <>
        <h1>Property not found</h1>
        <p>
          There is no structured property <code>{urn}</code>. <Link href="/properties">Back to the properties</Link>
        </p>
      </>
    );
  }
  const d = entity.definition;
  const removed = entity.status?.removed === true;

  async function act(what: 'soft' | 'restore' | 'hard') {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      if (what === 'soft') {
        await request(SoftDeletePropertyDocument, { urn });
        setNotice('Soft deleted: the property and its values are hidden until it is restored.');
      } else if (what === 'restore') {
        await request(RestorePropertyDocument, { urn });
        setNotice('Restored: the property and its values are visible again.');
      } else {
        await request(HardDeletePropertyDocument, { urn });
        setHardDeleted(true);
      }
      property.reload();
      setChanges((n) => n + 1);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  }
  const migrationEnded = () => {
    setFollowed(true);
    property.reload();
    setChanges((n) => n + 1);
  };

  return (
    <>
      <div className="page-head">
        <div>
          <h1>{nameOf(d)}</h1>
          <p className="subtitle">
            <code>{d.qualifiedName}</code> {removed && <span className="badge badge-removed">Soft deleted</span>}
          </p>
        </div>
        <div className="actions" role="group" aria-label="Property actions">
          {mayManage && !removed && !entity.migrating && (
            <Link className="button" href={`${propertyPath(urn)}/edit`}>
              Edit
            </Link>
          )}
          {mayManage && !removed && (
            <button type="button" className="secondary" disabled={busy} onClick={() => act('soft')}>
              Soft delete
            </button>
          )}
          {mayManage && removed && (
            <button type="button" disabled={busy} onClick={() => act('restore')}>
              Restore
            </button>
          )}
          {access.data && !mayManage && !mayDelete && <span className="hint">Not yours to change</span>}
          {mayDelete && (
            <button type="button" className="danger" disabled={busy} onClick={() => setConfirming(true)}>
              Delete permanently
            </button>
          )}
        </div>
      </div>
      {confirming && (
        <section className="confirm" aria-labelledby="confirm-title">
          <h2 id="confirm-title">Delete {nameOf(d)} permanently?</h2>
          <DeleteImpact urn={urn} />
          <p>The definition is removed at once and a background job removes its values from every entity. This cannot be undone.</p>
          <button type="button" className="danger" disabled={busy} onClick={() => act('hard')}>
            Yes, delete permanently
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </section>
      )}
      {notice && <StatusMessage>{notice}</StatusMessage>}
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {d.description && <p className="description">{d.description}</p>}
      {(entity.migrating || followed) && (
        <section aria-labelledby="migration-title">
          <h2 id="migration-title">Migration of the values</h2>
          <p>Every read shows the values as the migration makes them; a background job rewrites each entity, and each change is in the history below.</p>
          <MigrationProgress propertyUrn={urn} onDone={migrationEnded} />
        </section>
      )}

      <section aria-labelledby="definition-title">
        <h2 id="definition-title">Definition</h2>
        <dl className="definition">
          <dt>Value type</dt>
          <dd>{typeLabel(d.valueType.info.type)}</dd>
          <dt>Cardinality</dt>
          <dd>{d.cardinality === 'MULTIPLE' ? 'Many values per entity' : 'One value per entity'}</dd>
          <dt>Entity types</dt>
          <dd>{d.entityTypes.map((t) => entityTypeLabel(t.info.type)).join(', ')}</dd>
          {d.typeQualifier?.allowedTypes?.length ? (
            <>
              <dt>Values may name</dt>
              <dd>{d.typeQualifier.allowedTypes.map((t) => entityTypeLabel(t.info.type)).join(', ')}</dd>
            </>
          ) : null}
          <dt>Immutable values</dt>
          <dd>{d.immutable ? 'Yes' : 'No'}</dd>
          <dt>Version</dt>
          <dd>{d.version ?? 'None'}</dd>
          <dt>Display</dt>
          <dd>{SETTINGS.filter((x) => entity.settings?.[x.key]).map((x) => x.label).join('; ') || 'No display setting'}</dd>
          <dt>Last modified</dt>
          <dd>{entity.definition.lastModified ? `${formatTime(entity.definition.lastModified.time)} by ${entity.definition.lastModified.actor?.urn ?? 'unknown'}` : '—'}</dd>
        </dl>
        {d.allowedValues?.length ? (
          <table>
            <caption>Allowed values</caption>
            <thead>
              <tr>
                <th scope="col">Value</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {d.allowedValues.map((a) => (
                <tr key={valueText(a.value)}>
                  <td>{valueText(a.value)}</td>
                  <td>{a.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>Any value of the type is allowed.</p>
        )}
      </section>

      <section aria-labelledby="usage-title">
        <h2 id="usage-title">Values</h2>
        {removed ? <p>The values are hidden while the property is soft deleted.</p> : <Usage key={changes} definition={d} follow={entity.migrating || followed} />}
      </section>

      {removed ? (
        // A soft-deleted property's values are hidden, its lifecycle is not.
        <HistoryTimeline key={`lifecycle-${changes}`} urn={urn} title="History" />
      ) : (
        <HistoryTimeline key={`values-${changes}`} propertyUrn={urn} title="History of values" />
      )}

      <section aria-labelledby="history-title">
        <h2 id="history-title">Version history</h2>
        <table>
          <caption className="visually-hidden">Every change of the definition, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Revision</th>
              <th scope="col">Written</th>
              <th scope="col">By</th>
              <th scope="col">Version</th>
              <th scope="col">Definition</th>
            </tr>
          </thead>
          <tbody>
            {entity.definitionHistory.map((h) => (
              <tr key={h.revision}>
                <td>{h.revision}</td>
                <td>{formatTime(h.written.time)}</td>
                <td>{h.written.actor?.urn ?? ''}</td>
                <td>{h.definition.version ?? '—'}</td>
                <td>{summary(h.definition)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

/** What a hard delete would remove, said before anyone confirms it. */
function DeleteImpact({ urn }: { urn: string }) {
  const impact = useQuery(PropertyImpactDocument, { urn });
  const i = impact.data?.structuredProperty?.valueImpact;
  if (impact.error) return <ErrorMessage>{impact.error}</ErrorMessage>;
  if (!i) return <Loading what="what the delete removes" />;
  const types = i.byEntityType.map((t) => `${entityTypeLabel(t.entityType)}: ${t.count}`).join(', ');
  return (
    <p className="impact" role="status">
      {i.values === 0 ? 'No entity holds a value of it.' : `This removes ${counted(i.values, 'value')} on ${counted(i.entities, 'entity', 'entities')}${types ? ` (${types})` : ''}.`}
    </p>
  );
}

function summary(d: DefinitionFragment): string {
  const parts = [typeLabel(d.valueType.info.type), d.cardinality === 'MULTIPLE' ? 'many values' : 'one value', `on ${d.entityTypes.map((t) => entityTypeLabel(t.info.type)).join(', ')}`];
  if (d.allowedValues?.length) parts.push(`allowed: ${d.allowedValues.map((a) => valueText(a.value)).join(', ')}`);
  return parts.join('; ');
}

/** Counts are asked again this often while a migration is followed, so they follow its job and the index behind it. */
const MIGRATION_COUNTS_MS = 2000;

/** How many entities hold a value, and the chart of the values (asked again and again while `follow`). */
function Usage({ definition: d, follow = false }: { definition: DefinitionFragment; follow?: boolean }) {
  const nameOf = usePropertyLabel();
  const field = searchField(d.qualifiedName);
  const types = holderTypes(d);
  const poll = follow ? { poll: MIGRATION_COUNTS_MS } : {};
  const holders = useQuery(PropertyHoldersDocument, { input: { types, query: '*', count: 0, orFilters: [{ and: [{ field, condition: 'EXISTS' }] }] } }, poll);
  const distribution = useQuery(PropertyDistributionDocument, { input: { types, query: '*', facets: [field], searchFlags: { maxAggValues: 1000 } } }, poll);
  const error = holders.error ?? distribution.error;
  if (error) return <ErrorMessage>{error}</ErrorMessage>;
  if (!holders.data || !distribution.data) return <Loading what="the values" />;
  const total = holders.data.scrollAcrossEntities?.total ?? 0;
  const counts = (distribution.data.aggregateAcrossEntities?.facets?.[0]?.aggregations ?? []).map((a) => ({ value: a.value, count: a.count }));
  const scale = valueTypeOfStd(d.valueType.info.type)?.scale;
  let buckets: Bucket[];
  let kind: 'bars' | 'histogram' = 'bars';
  // A value's count links to the entities holding it: the search for that value.
  const valueSearch = (value: string) => `/search?${new URLSearchParams([[`v:${d.qualifiedName}`, value]])}`;
  if (d.allowedValues?.length) {
    buckets = d.allowedValues.map((a) => {
      const value = valueText(a.value);
      const found = counts.find((c) => facetValueText(d, c.value) === facetValueText(d, value));
      return { label: value, count: found?.count ?? 0, description: a.description, ...(found ? { href: valueSearch(found.value) } : {}) };
    });
  } else if (scale === 'number') {
    buckets = numberHistogram(counts);
    kind = 'histogram';
  } else if (scale === 'date') {
    buckets = dateHistogram(counts);
    kind = 'histogram';
  } else {
    buckets = counts.map((c) => ({ label: c.value, count: c.count, href: valueSearch(c.value) }));
  }
  return (
    <>
      <p className="holders">
        <Link href={`/search?${new URLSearchParams([[`has:${d.qualifiedName}`, 'yes']])}`}>
          <strong>{total}</strong> {total === 1 ? 'entity holds' : 'entities hold'} a value
        </Link>
        .
      </p>
      <ValueChart title={nameOf(d)} buckets={buckets} kind={kind} />
    </>
  );
}
