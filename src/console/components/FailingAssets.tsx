/**
 * A test's failing assets: per asset, the values it holds of the properties the test's
 * rules read (what made it fail, at a glance; issue #41), and on demand the rules it
 * fails in words with what it has there.
 */
import { useMemo, useState } from 'react';
import { ExplainTestDocument, type ExplainTestQuery, type TestComplianceQuery } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { entityPath, Link } from '../lib/router';
import { FailureReasons } from '../pages/TestFailure';
import { propertiesRead, parseTestDefinitionJson } from '../../domain/testDefinition.js';
import { ErrorMessage, Loading } from './Messages';

type Failing = TestComplianceQuery['testReport']['tests'][number]['failingEntities'];

type FailingEntity = Failing['entities'][number];

/** The values an asset holds of the properties a test's rules read: what made it fail, at a glance. */
function FailedValues({ entity, read }: { entity: FailingEntity; read: readonly string[] }) {
  const nameOf = usePropertyLabel();
  const held = 'structuredProperties' in entity ? (entity.structuredProperties?.properties ?? []) : [];
  if (read.length === 0) return null;
  return (
    <dl className="result-values">
      {read.map((urn) => {
        const p = held.find((h) => h.structuredProperty.urn === urn);
        return (
          <div key={urn}>
            <dt>{p ? nameOf(p.structuredProperty.definition) : urn.replace(/^urn:li:structuredProperty:/, '')}</dt>
            <dd>{p && p.values.length > 0 ? p.values.map((v) => valueText(v)).join(', ') : 'no value'}</dd>
          </div>
        );
      })}
    </dl>
  );
}

export function FailingList({ testUrn, definition, failing, onMore }: { testUrn: string; definition: string; failing: Failing; onMore: () => void }) {
  const read = useMemo(() => {
    try {
      return propertiesRead(parseTestDefinitionJson(definition));
    } catch {
      return [];
    }
  }, [definition]);
  if (failing.total === 0) return <p role="status">No asset fails this test.</p>;
  return (
    <>
      <table className="failing">
        <caption>
          {failing.entities.length} of {failing.total} failing assets
        </caption>
        <thead>
          <tr>
            <th scope="col">Asset</th>
            {read.length > 0 && <th scope="col">Its values</th>}
            <th scope="col">Why it fails</th>
          </tr>
        </thead>
        <tbody>
          {failing.entities.map((e) => (
            <tr key={e.urn}>
              <th scope="row">
                <Link href={entityPath(e.urn)}>{'name' in e && e.name ? e.name : e.urn}</Link>
                {'platform' in e && <span className="hint"> {e.platform.name}</span>}
              </th>
              {read.length > 0 && (
                <td>
                  <FailedValues entity={e} read={read} />
                </td>
              )}
              <td>
                <Why testUrn={testUrn} urn={e.urn} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {failing.nextScrollId && (
        <button type="button" className="secondary" onClick={onMore}>
          Load more
        </button>
      )}
    </>
  );
}

function Why({ testUrn, urn }: { testUrn: string; urn: string }) {
  const [open, setOpen] = useState(false);
  const [answer, setAnswer] = useState<ExplainTestQuery['explainTest'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const toggle = async () => {
    const next = !open;
    setOpen(next);
    if (!next || answer) return;
    try {
      setAnswer((await request(ExplainTestDocument, { input: { test: testUrn, urn } })).explainTest);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <div>
      <button type="button" className="secondary" aria-expanded={open} onClick={() => void toggle()}>
        {open ? 'Hide' : 'Show'} the rule that failed<span className="visually-hidden"> for {urn}</span>
      </button>
      {open && (error ? <ErrorMessage>{error}</ErrorMessage> : answer ? <FailureReasons explained={answer} /> : <Loading what="the explanation" />)}
    </div>
  );
}

