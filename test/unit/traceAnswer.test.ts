import { aspectTraceOf, isTraceError, type AspectTrace } from '../../src/domain/writeTrace.js';
import { TRACE_CHUNK_BYTES, traceAnswerChunks } from '../../src/rest/traceAnswer.js';
import { nonEmpty } from '../support/nonEmpty.js';

const ACTIVE = aspectTraceOf({ exists: true, searchPending: false, searchEnabled: true });
const PENDING = aspectTraceOf({ exists: true, searchPending: true, searchEnabled: true });
const ERROR: AspectTrace = { success: false, primaryStorage: { writeStatus: 'ERROR' }, searchStorage: { writeStatus: 'ERROR' } };

type Traces = Map<string, Map<string, AspectTrace>>;

/** The answer as it was written before it was streamed: one JSON.stringify per entity. */
function reference(traces: Traces, onlyErrors: boolean): string {
  const parts: string[] = [];
  for (const [urn, aspects] of traces) {
    const shown = [...aspects].filter(([, trace]) => !onlyErrors || isTraceError(trace));
    if (shown.length > 0) parts.push(`${JSON.stringify(urn)}:${JSON.stringify(Object.fromEntries(shown))}`);
  }
  return `{${parts.join(',')}}`;
}

async function streamed(traces: Traces, onlyErrors: boolean): Promise<{ text: string; chunks: Buffer[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of traceAnswerChunks(traces, onlyErrors)) chunks.push(chunk);
  return { text: Buffer.concat(chunks).toString('utf8'), chunks };
}

const ASPECTS = ['status', 'structuredProperties', 'datasetProperties', 'globalTags', 'ownership', 'schemaMetadata', 'subTypes', 'domains', 'glossaryTerms', 'container'];
const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,t${i},PROD)`;

describe('traceAnswerChunks', () => {
  const cases: Array<[string, Traces]> = [
    ['nothing asked', new Map()],
    ['one entity', new Map([[urn(0), new Map([['status', ACTIVE]])]])],
    ['statuses of every kind, an entity without aspects', new Map([[urn(1), new Map([['status', ACTIVE], ['globalTags', PENDING], ['ownership', ERROR]])], [urn(2), new Map()], [urn(3), new Map([['status', ERROR]])]])],
    ['names that need escaping', new Map([['urn:li:dataset:(urn:li:dataPlatform:hive,"quoted"\\ é 😀,PROD)', new Map([['a"b', ACTIVE], ['\u2028', ERROR]])]])],
    ['aspect names an object lists first (array indices)', new Map([[urn(4), new Map([['status', ACTIVE], ['7', ERROR], ['0', PENDING], ['4294967296', ACTIVE]])]])],
  ];
  test.each(cases)('writes what JSON.stringify wrote, every status and only the errors: %s', async (_name, traces) => {
    for (const onlyErrors of [false, true]) expect((await streamed(traces, onlyErrors)).text).toBe(reference(traces, onlyErrors));
  });

  test('1,000 entities of 10 aspects come in chunks of about TRACE_CHUNK_BYTES, to the same text', async () => {
    const traces: Traces = new Map(Array.from({ length: 1000 }, (_, i) => [urn(i), new Map(ASPECTS.map((a, k) => [a, (i + k) % 7 === 0 ? PENDING : ACTIVE]))]));
    const { text, chunks } = await streamed(traces, false);
    expect(text).toBe(reference(traces, false));
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(chunks.length).toBeGreaterThan(text.length / (2 * TRACE_CHUNK_BYTES));
    for (const chunk of nonEmpty(chunks)) expect(chunk.length).toBeLessThan(TRACE_CHUNK_BYTES + 2000);
  });
});
