/** Passing and failing metadata tests, each linking to the test. */
import type { ResultsFragment } from '../generated/graphql';
import { Link, testPath } from '../lib/router';

export function TestResultsView({ results }: { results: ResultsFragment }) {
  const rows = [...results.failing, ...results.passing];
  if (rows.length === 0) return <p>No test applies to this entity.</p>;
  return (
    <table className="test-results">
      <caption className="visually-hidden">Test results</caption>
      <thead>
        <tr>
          <th scope="col">Test</th>
          <th scope="col">Category</th>
          <th scope="col">Result</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={r.test?.urn ?? i}>
            <td>{r.test ? <Link href={testPath(r.test.urn)}>{r.test.name}</Link> : 'A deleted test'}</td>
            <td>{r.test?.category ?? ''}</td>
            <td>{r.type === 'SUCCESS' ? <span className="badge badge-pass">Pass</span> : <span className="badge badge-fail">Fail</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
