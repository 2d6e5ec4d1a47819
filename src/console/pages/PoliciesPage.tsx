/**
 * Policies (docs/console.md, "Policies"): the policies in force, each with who it grants
 * what on which resources; for a person who may manage them, editing one (as DataHub's
 * PolicyUpdateInput, in JSON), turning it off or on, creating and deleting; and testing
 * them: who could use a privilege on an entity ("who could edit acme.pii on this
 * dataset?"), and why a person may or may not. The server decides every change and
 * every answer; this page only asks.
 */
import { useState, type FormEvent } from 'react';
import { ErrorMessage, Loading, StatusMessage } from '../components/Messages';
import {
  CreatePolicyDocument,
  DeletePolicyDocument,
  ExplainAccessDocument,
  PoliciesDocument,
  UpdatePolicyDocument,
  WhoCouldDocument,
  type ExplainAccessQuery,
  type PolicyCriteriaFragment,
  type PolicyRowFragment,
  type PolicyUpdateInput,
  type WhoCouldQuery,
} from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';

/** The privileges a policy may grant (domain/policies/privileges.ts), for the test form. */
const PRIVILEGES = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES', 'SOFT_DELETE_ENTITY', 'MANAGE_STRUCTURED_PROPERTIES', 'DELETE_ENTITY', 'MANAGE_TESTS', 'BULK_EDIT', 'MANAGE_ACCESS_TOKENS', 'MANAGE_POLICIES'];

function criteriaText(filter: PolicyCriteriaFragment | null | undefined): string[] {
  return (filter?.criteria ?? []).map((c) => `${c.field} ${c.condition === 'STARTS_WITH' ? 'starts with' : 'is'} ${c.values.map((v) => v.value).join(' or ')}`);
}

/** The properties value and definition privileges cover: those named, or every one but those left out (NOT_EQUALS). */
function constraintsText(filter: PolicyCriteriaFragment | null | undefined): string[] {
  const name = (urn: string) => urn.replace(/^urn:li:structuredProperty:/, '');
  return (filter?.criteria ?? []).map((c) => `${c.condition === 'NOT_EQUALS' ? 'every property but' : 'only the properties'} ${c.values.map((v) => name(v.value)).join(', ')}`);
}

function actorsText(p: PolicyRowFragment): string {
  const a = p.actors;
  return [...(a.allUsers ? ['everyone signed in'] : []), ...(a.allGroups ? ['everyone in a group'] : []), ...(a.resourceOwners ? ['owners of the resource'] : []), ...(a.users ?? []), ...(a.groups ?? [])].join(', ');
}

/** The policy as createPolicy and updatePolicy take it. */
function inputOf(p: PolicyRowFragment): PolicyUpdateInput {
  const criteria = (f: PolicyCriteriaFragment | null | undefined) => (f?.criteria ?? []).map((c) => ({ field: c.field, values: c.values.map((v) => v.value), condition: c.condition }));
  return {
    type: p.type,
    name: p.name,
    state: p.state,
    ...(p.description ? { description: p.description } : {}),
    privileges: [...p.privileges],
    actors: { users: p.actors.users ?? [], groups: p.actors.groups ?? [], resourceOwners: p.actors.resourceOwners, allUsers: p.actors.allUsers, allGroups: p.actors.allGroups },
    resources: p.resources?.filter ? { filter: { criteria: criteria(p.resources.filter) } } : { allResources: true },
    ...(p.policyConstraints ? { policyConstraints: { criteria: criteria(p.policyConstraints) } } : {}),
  };
}

const NEW_POLICY: PolicyUpdateInput = {
  type: 'METADATA',
  name: 'Finance stewards edit finance datasets',
  state: 'ACTIVE',
  privileges: ['EDIT_ENTITY_PROPERTIES'],
  actors: { groups: ['finance-stewards'], users: [], resourceOwners: false, allUsers: false, allGroups: false },
  resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'], condition: 'EQUALS' }] } },
};

export function PoliciesPage({ me }: { me: Me }) {
  const list = useQuery(PoliciesDocument, { input: { start: 0, count: 1000 } });
  const manage = me.platformPrivileges.managePolicies;
  const [editing, setEditing] = useState<{ urn: string | null; text: string; id: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function act(what: () => Promise<unknown>, done: string) {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await what();
      setNotice(done);
      setEditing(null);
      list.reload();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  function save(e: FormEvent) {
    e.preventDefault();
    if (!editing) return;
    let input: PolicyUpdateInput;
    try {
      input = JSON.parse(editing.text) as PolicyUpdateInput;
    } catch (err) {
      setError(`The policy is not JSON: ${messageOf(err)}`);
      return;
    }
    const urn = editing.urn;
    void act(
      () => (urn ? request(UpdatePolicyDocument, { urn, input }) : request(CreatePolicyDocument, { input: { ...input, ...(editing.id.trim() ? { id: editing.id.trim() } : {}) } })),
      urn ? `${input.name} saved.` : `${input.name} created.`,
    );
  }

  const policies = list.data?.listPolicies.policies ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Policies</h1>
        <div className="actions">
          {manage && !editing && (
            <button type="button" onClick={() => setEditing({ urn: null, id: '', text: JSON.stringify(NEW_POLICY, null, 2) })}>
              New policy
            </button>
          )}
        </div>
      </div>
      <p className="subtitle">Who may do what to which entities and properties. A token's scope stays the ceiling of every privilege.</p>
      {notice && <StatusMessage>{notice}</StatusMessage>}
      {error && <ErrorMessage title="The server refused it.">{error}</ErrorMessage>}
      {editing && (
        <form className="policy-editor" aria-label={editing.urn ? `Edit ${editing.urn}` : 'New policy'} onSubmit={save}>
          {!editing.urn && (
            <div className="field">
              <label htmlFor="policy-id">Id (its urn is urn:li:dataHubPolicy:&lt;id&gt;; empty: a random one)</label>
              <input id="policy-id" value={editing.id} onChange={(e) => setEditing({ ...editing, id: e.target.value })} />
            </div>
          )}
          <div className="field">
            <label htmlFor="policy-json">Policy (DataHub's PolicyUpdateInput)</label>
            <textarea id="policy-json" rows={18} cols={90} spellCheck={false} value={editing.text} onChange={(e) => setEditing({ ...editing, text: e.target.value })} />
          </div>
          <div className="actions">
            <button type="submit" disabled={busy}>
              Save
            </button>
            <button type="button" className="secondary" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {list.error && <ErrorMessage>{list.error}</ErrorMessage>}
      {list.loading && !list.data && <Loading what="the policies" />}
      <table className="policies">
        <caption className="visually-hidden">Policies in force</caption>
        <thead>
          <tr>
            <th scope="col">Policy</th>
            <th scope="col">Grants</th>
            <th scope="col">To</th>
            <th scope="col">On</th>
            {manage && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {policies.map((p) => (
            <tr key={p.urn} data-policy={p.urn}>
              <th scope="row">
                {p.name}
                <span className="hint"> {p.state === 'ACTIVE' ? '' : '(off) '}{p.origin === 'DEFAULT' ? '(shipped default)' : ''}</span>
                <p className="hint">{p.urn}</p>
              </th>
              <td>{p.privileges.join(', ')}</td>
              <td>{actorsText(p)}</td>
              <td>
                {[...criteriaText(p.resources?.filter), ...constraintsText(p.policyConstraints)].join('; ') || 'every resource'}
              </td>
              {manage && (
                <td className="row-actions">
                  <button type="button" className="secondary" aria-label={`Edit ${p.name}`} onClick={() => setEditing({ urn: p.urn, id: '', text: JSON.stringify(inputOf(p), null, 2) })}>
                    Edit
                  </button>
                  <button
                    type="button"
                    className="secondary"
                    disabled={busy}
                    aria-label={`${p.state === 'ACTIVE' ? 'Turn off' : 'Turn on'} ${p.name}`}
                    onClick={() => void act(() => request(UpdatePolicyDocument, { urn: p.urn, input: { ...inputOf(p), state: p.state === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE' } }), `${p.name} turned ${p.state === 'ACTIVE' ? 'off' : 'on'}.`)}
                  >
                    {p.state === 'ACTIVE' ? 'Turn off' : 'Turn on'}
                  </button>
                  {p.origin === 'STORED' && (
                    <button type="button" className="secondary" disabled={busy} aria-label={`Delete ${p.name}`} onClick={() => void act(() => request(DeletePolicyDocument, { urn: p.urn }), `${p.name} deleted.`)}>
                      Delete
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <PolicyTester me={me} />
    </>
  );
}

/** "Who could edit acme.pii on this dataset?", and why a person may or may not. */
function PolicyTester({ me }: { me: Me }) {
  const [privilege, setPrivilege] = useState('EDIT_ENTITY_PROPERTIES');
  const [urn, setUrn] = useState('');
  const [property, setProperty] = useState('');
  const [principal, setPrincipal] = useState('');
  const [who, setWho] = useState<WhoCouldQuery['whoCould'] | null>(null);
  const [why, setWhy] = useState<ExplainAccessQuery['explainAccess'] | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function ask(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const target = { privilege, ...(urn.trim() ? { urn: urn.trim() } : {}), ...(property.trim() ? { property: property.trim() } : {}) };
    try {
      setWho((await request(WhoCouldDocument, { input: target })).whoCould);
      setWhy((await request(ExplainAccessDocument, { input: { ...target, ...(principal.trim() ? { principal: principal.trim() } : {}) } })).explainAccess);
    } catch (err) {
      setWho(null);
      setWhy(null);
      setError(messageOf(err));
    }
  }

  return (
    <section aria-labelledby="tester-title">
      <h2 id="tester-title">Test the policies</h2>
      <form className="filters" aria-label="Test the policies" onSubmit={(e) => void ask(e)}>
        <div className="field">
          <label htmlFor="test-privilege">Privilege</label>
          <select id="test-privilege" value={privilege} onChange={(e) => setPrivilege(e.target.value)}>
            {PRIVILEGES.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </div>
        <div className="field wide">
          <label htmlFor="test-urn">Entity urn</label>
          <input id="test-urn" value={urn} onChange={(e) => setUrn(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="test-property">Property (for values and definitions)</label>
          <input id="test-property" value={property} onChange={(e) => setProperty(e.target.value)} />
        </div>
        {me.platformPrivileges.managePolicies && (
          <div className="field">
            <label htmlFor="test-principal">Explain for (urn or id; empty: you)</label>
            <input id="test-principal" value={principal} onChange={(e) => setPrincipal(e.target.value)} />
          </div>
        )}
        <button type="submit">Ask</button>
      </form>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {who && (
        <div className="who-could" aria-live="polite">
          <h3>Who could</h3>
          {who.grantees.length === 0 ? (
            <p>Nobody: no active policy grants {who.privilege} here.</p>
          ) : (
            <ul>
              {who.grantees.map((g) => (
                <li key={g.policy.urn}>
                  {g.actors.join(', ')} <span className="hint">(by {g.policy.name})</span>
                </li>
              ))}
            </ul>
          )}
          {who.owners.length > 0 && <p>Owners: {who.owners.join(', ')}</p>}
          <p className="hint">A token needs {who.scopeNeeded.toLowerCase()} scope besides.</p>
        </div>
      )}
      {why && (
        <div className="why" aria-live="polite">
          <h3>Why</h3>
          <p>{why.summary}</p>
          <ul>
            {why.notGranting.map((r) => (
              <li key={r.urn}>
                Not by {r.name}: {r.refusal}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
