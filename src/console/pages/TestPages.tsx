/**
 * Metadata tests: the compliance dashboard (a card and a chart per test), and a test's
 * page: its counts and trend, the failing assets with the values of the properties its
 * rules read and the rule each one fails, a way to open them in search or edit them all,
 * its definition, and evaluating it against any entity. Both pages follow the
 * evaluator on their own (issue #41: the dashboard changed only on a reload).
 */
import { useCallback, useState, type FormEvent } from 'react';
import { BulkEditPanel } from '../components/BulkEditPanel';
import { ComplianceChart } from '../components/ComplianceChart';
import { HistoryTimeline } from '../components/HistoryTimeline';
import { ErrorMessage, Loading, StatusMessage } from '../components/Messages';
import { TestResultsView } from '../components/TestResultsView';
import { TestRun } from '../components/TestRun';
import {
  DeleteTestDocument,
  EvaluateTestsDocument,
  TestComplianceDocument,
  TestDashboardDocument,
  TestPageDocument,
  type ComplianceFragment,
  type ResultsFragment,
} from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { Link, navigate, testPath } from '../lib/router';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';
import { FailingList } from '../components/FailingAssets';

const FAILING_PAGE = 20;
/** How often the compliance pages ask again: the evaluator keeps results current within seconds. */
const FOLLOW_MS = 5000;

/** The search query of a test's failing assets, in the form the search box and bulk edits take. */
export const failingQuery = (testUrn: string): string => `failingTests:${testUrn}`;

function passRate(t: { passing: number; failing: number }): string {
  const judged = t.passing + t.failing;
  return judged === 0 ? 'no entity in scope' : `${((100 * t.passing) / judged).toFixed(1)}% passing`;
}

function Counts({ t }: { t: ComplianceFragment }) {
  return (
    <dl className="counts-list">
      <dt>Passing</dt>
      <dd className="count-pass">{t.passing}</dd>
      <dt>Failing</dt>
      <dd className="count-fail">{t.failing}</dd>
      <dt>Not applicable</dt>
      <dd>{t.notApplicable}</dd>
    </dl>
  );
}

export function TestDashboard({ me }: { me: Me }) {
  const report = useQuery(TestDashboardDocument, {}, { poll: FOLLOW_MS });
  const [words, setWords] = useState('');
  const shown = (report.data?.testReport.tests ?? []).filter((t) =>
    [t.test.name, t.test.category, t.test.urn].some((s) => s.toLowerCase().includes(words.trim().toLowerCase())),
  );
  return (
    <>
      <div className="page-head">
        <h1>Metadata tests</h1>
        <div className="actions">
          {me.platformPrivileges.manageTests && (
            <Link className="button" href="/tests/new">
              New test
            </Link>
          )}
          {me.platformPrivileges.pushTestResults && <TestRun label="Run every test now" onDone={report.reload} />}
        </div>
      </div>
      <p className="subtitle">
        Which assets pass and fail each test, kept current as metadata changes
        {report.data && <> (counts as of {report.data.testReport.generatedAt.slice(11, 19)} UTC, followed as they change)</>}.
      </p>
      <form className="filters" role="search" aria-label="Tests" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="tests-q">Name or category</label>
          <input id="tests-q" type="search" value={words} onChange={(e) => setWords(e.target.value)} />
        </div>
      </form>
      {report.error && <ErrorMessage>{report.error}</ErrorMessage>}
      {!report.data && !report.error && <Loading what="the compliance report" />}
      {report.data && (
        <>
          <p role="status">
            {shown.length} of {report.data.testReport.tests.length} tests
          </p>
          <ul className="test-cards">
            {shown.map((t) => (
              <li key={t.test.urn} className="test-card">
                <h2>
                  <Link href={testPath(t.test.urn)}>{t.test.name}</Link>
                </h2>
                <p className="subtitle">
                  <span className="badge">{t.test.category}</span> {passRate(t)}
                </p>
                <Counts t={t} />
                <ComplianceChart title={t.test.name} trend={t.trend} size="small" />
                {t.failing > 0 && <Link href={`${testPath(t.test.urn)}#failing`}>The {t.failing} failing assets</Link>}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}


export function TestPage({ me, urn }: { me: Me; urn: string }) {
  const test = useQuery(TestPageDocument, { urn });
  const [query, setQuery] = useState('');
  const [words, setWords] = useState('');
  const [count, setCount] = useState(FAILING_PAGE);
  const compliance = useQuery(TestComplianceDocument, { urn, failing: { count, ...(query ? { query } : {}) } }, { poll: FOLLOW_MS });
  const [editing, setEditing] = useState(false);
  const [deleted, setDeleted] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = compliance.reload;
  const refresh = useCallback(() => reload(), [reload]);
  if (test.error) return <ErrorMessage>{test.error}</ErrorMessage>;
  if (!test.data) return <Loading what="the test" />;
  const t = test.data.test;
  if (!t) return <ErrorMessage>There is no test {urn}.</ErrorMessage>;
  const c = compliance.data?.testReport.tests[0];
  const remove = async () => {
    if (!window.confirm(`Delete the test ${t.name}? Its results are removed from every asset.`)) return;
    try {
      await request(DeleteTestDocument, { urn });
      setDeleted(`${t.name} is deleted; its results are being removed from every asset.`);
      navigate('/tests');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const search = (event: FormEvent) => {
    event.preventDefault();
    setCount(FAILING_PAGE);
    setQuery(words.trim());
  };
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{t.name}</h1>
          <p className="subtitle">
            <span className="badge">{t.category}</span> <code className="urn">{t.urn}</code>
          </p>
        </div>
        <div className="actions">
          {me.platformPrivileges.manageTests && (
            <>
              <Link className="button secondary" href={`${testPath(urn)}/edit`}>
                Edit
              </Link>
              <button type="button" className="danger" onClick={() => void remove()}>
                Delete
              </button>
            </>
          )}
          {me.platformPrivileges.pushTestResults && <TestRun testUrns={[urn]} label="Run this test now" onDone={refresh} />}
        </div>
      </div>
      {deleted && <StatusMessage>{deleted}</StatusMessage>}
      <ErrorMessage>{error}</ErrorMessage>
      {t.description && <p className="description">{t.description}</p>}
      {compliance.error && <ErrorMessage>{compliance.error}</ErrorMessage>}
      {c && (
        <section aria-labelledby="test-compliance">
          <h2 id="test-compliance">Compliance</h2>
          <p>{passRate(c)}</p>
          <Counts t={c} />
          <ComplianceChart title={t.name} trend={c.trend} />
        </section>
      )}
      <section aria-labelledby="failing">
        <h2 id="failing">Failing assets</h2>
        <form className="filters" role="search" aria-label="Failing assets" onSubmit={search}>
          <div className="field">
            <label htmlFor="failing-q">Search the failing assets</label>
            <input id="failing-q" type="search" value={words} onChange={(e) => setWords(e.target.value)} />
          </div>
          <button type="submit">Search</button>
        </form>
        {c && c.failing > 0 && (
          <p className="actions">
            <Link className="button secondary" href={`/search?${new URLSearchParams({ q: failingQuery(urn) })}`}>
              Open the {c.failing} failing assets in search
            </Link>
            {me.platformPrivileges.bulkEditStructuredPropertyValues && !editing && (
              <button type="button" className="secondary" onClick={() => setEditing(true)}>
                Bulk edit the {c.failing} failing assets
              </button>
            )}
          </p>
        )}
        {editing && c && <BulkEditPanel selection={{ query: failingQuery(urn), count: c.failing, what: `the ${c.failing} assets failing ${t.name}` }} onDone={refresh} />}
        {c ? <FailingList testUrn={urn} definition={t.definition.json ?? ''} failing={c.failingEntities} onMore={() => setCount((n) => n + FAILING_PAGE)} /> : !compliance.error && <Loading what="the failing assets" />}
      </section>
      <Definition json={t.definition.json ?? ''} />
      <Evaluate urn={urn} />
      <HistoryTimeline urn={urn} title="History" />
      <p>
        <Link href="/tests">All tests</Link>
      </p>
    </>
  );
}

function Definition({ json }: { json: string }) {
  let pretty = json;
  try {
    pretty = JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    // Shown as stored.
  }
  return (
    <section aria-labelledby="test-definition">
      <h2 id="test-definition">Definition</h2>
      <pre className="json" tabIndex={0} aria-label="Test definition (JSON)">
        {pretty}
      </pre>
    </section>
  );
}

function Evaluate({ urn }: { urn: string }) {
  const [target, setTarget] = useState('');
  const [results, setResults] = useState<ResultsFragment | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const evaluate = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setResults(null);
    try {
      setResults((await request(EvaluateTestsDocument, { input: { urn: target.trim(), testUrns: [urn] } })).evaluateTests);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="test-evaluate">
      <h2 id="test-evaluate">Evaluate against an entity</h2>
      <form className="filters" onSubmit={evaluate}>
        <div className="field wide">
          <label htmlFor="test-target">Entity URN</label>
          <input id="test-target" value={target} onChange={(e) => setTarget(e.target.value)} placeholder="urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)" />
        </div>
        <button type="submit" disabled={busy || !target.trim()}>
          Evaluate
        </button>
      </form>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {results && <TestResultsView results={results} />}
    </section>
  );
}
