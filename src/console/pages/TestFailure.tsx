/** The rules an asset fails (explainTest's failedRules), each with what the asset has. */
import type { ExplainTestQuery } from '../generated/graphql';

type Explained = ExplainTestQuery['explainTest'];

/** Each operator after "should" or "should not". */
const OPERATOR_WORDS: Readonly<Record<string, string>> = {
  equals: 'equal',
  contains_any: 'contain one of',
  contains_str: 'contain the text',
  starts_with: 'start with',
  regex_match: 'match',
  greater_than: 'be greater than',
  greater_than_or_equal_to: 'be at least',
  less_than: 'be less than',
  less_than_or_equal_to: 'be at most',
  exists: 'exist',
  is_true: 'be true',
  is_false: 'be false',
};

export function FailureReasons({ explained }: { explained: Explained }) {
  if (explained.outcome === 'SUCCESS') return <p>The asset passes this test now (its stored result is about to follow).</p>;
  if (explained.outcome === 'OUT_OF_SCOPE') return <p>The test does not apply to this asset now.</p>;
  return (
    <>
      {explained.boundExceeded && <p className="field-error">The evaluation stopped early: {explained.boundExceeded}. A test that cannot be shown to pass fails.</p>}
      <ul className="failed-rules">
        {explained.failedRules.map((r, i) => (
          <li key={i}>
            <code>{r.property}</code> {r.expected ? 'should' : 'should not'} {OPERATOR_WORDS[r.operator] ?? r.operator}
            {r.values.length > 0 && <> {r.values.map((v) => JSON.stringify(v)).join(', ')}</>}
            <br />
            <span className="hint">{r.actual.length === 0 ? 'The asset has no value there.' : `The asset has: ${r.actual.map((v) => JSON.stringify(v)).join(', ')}`}</span>
          </li>
        ))}
      </ul>
    </>
  );
}
