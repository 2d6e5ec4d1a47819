/** Metadata tests: the list, one test's definition, and evaluating it against an entity. */
import { useState, type FormEvent } from 'react';
import { ErrorMessage, Loading } from '../components/Messages';
import { TestResultsView } from '../components/TestResultsView';
import { EvaluateTestsDocument, TestListDocument, TestPageDocument, type ResultsFragment } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { Link, testPath } from '../lib/router';
import { useQuery } from '../lib/useQuery';

export function TestList() {
  const [words, setWords] = useState('');
  const [query, setQuery] = useState('');
  const list = useQuery(TestListDocument, { input: { start: 0, count: 500, ...(query ? { query } : {}) } });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setQuery(words.trim());
  };
  return (
    <>
      <h1>Metadata tests</h1>
      <form className="filters" role="search" aria-label="Tests" onSubmit={submit}>
        <div className="field">
          <label htmlFor="tests-q">Name or category</label>
          <input id="tests-q" type="search" value={words} onChange={(e) => setWords(e.target.value)} />
        </div>
        <button type="submit">Search</button>
      </form>
      {list.error && <ErrorMessage>{list.error}</ErrorMessage>}
      {!list.data && !list.error && <Loading what="tests" />}
      {list.data?.listTests && (
        <table>
          <caption>{list.data.listTests.total} tests</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Category</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {list.data.listTests.tests.map((t) => (
              <tr key={t.urn}>
                <td>
                  <Link href={testPath(t.urn)}>{t.name}</Link>
                </td>
                <td>{t.category}</td>
                <td>{t.description ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function TestPage({ urn }: { urn: string }) {
  const test = useQuery(TestPageDocument, { urn });
  const [target, setTarget] = useState('');
  const [results, setResults] = useState<ResultsFragment | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (test.error) return <ErrorMessage>{test.error}</ErrorMessage>;
  if (!test.data) return <Loading what="the test" />;
  const t = test.data.test;
  if (!t) return <ErrorMessage>There is no test {urn}.</ErrorMessage>;
  let pretty = t.definition.json ?? '';
  try {
    pretty = JSON.stringify(JSON.parse(pretty), null, 2);
  } catch {
    // Shown as stored.
  }
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
    <>
      <h1>{t.name}</h1>
      <p className="subtitle">
        <span className="badge">{t.category}</span> <code className="urn">{t.urn}</code>
      </p>
      {t.description && <p className="description">{t.description}</p>}
      <section aria-labelledby="test-definition">
        <h2 id="test-definition">Definition</h2>
        <pre className="json" tabIndex={0} aria-label="Test definition (JSON)">
          {pretty}
        </pre>
      </section>
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
        <p>
          <Link href="/tests">All tests</Link>
        </p>
      </section>
    </>
  );
}
