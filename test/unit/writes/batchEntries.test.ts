/** DataHub's one-item-per-aspect batches merged per entity (issue #13). */
import { laterReplaces, mergeBatchEntries, patchesInOrder } from '../../../src/domain/writes/batchEntries.js';

const A = 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)';
const B = 'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)';
const entry = <T>(urn: string, aspects: Record<string, T>) => ({ urn, aspects: new Map(Object.entries(aspects)) });

describe('mergeBatchEntries', () => {
  test('items of one URN become one entry, entities in first-appearance order, aspects in the order sent', () => {
    const merged = mergeBatchEntries([entry(A, { status: 1 }), entry(B, { status: 2 }), entry(A, { subTypes: 3 })], laterReplaces);
    expect(merged.map((m) => [m.urn, [...m.aspects]])).toEqual([
      [A, [['status', 1], ['subTypes', 3]]],
      [B, [['status', 2]]],
    ]);
  });

  test('the same aspect twice: a replacing write keeps the later value', () => {
    expect([...mergeBatchEntries([entry(A, { status: 'first' }), entry(A, { status: 'second' })], laterReplaces)[0]!.aspects]).toEqual([['status', 'second']]);
  });

  test('a batch without repeated URNs is unchanged', () => {
    expect(mergeBatchEntries([entry(A, { status: 1 }), entry(B, { status: 2 })], laterReplaces)).toEqual([entry(A, { status: 1 }), entry(B, { status: 2 })]);
  });
});

describe('patchesInOrder', () => {
  test('patches of one aspect run one after the other; the later system metadata is kept, else the earlier', () => {
    expect(patchesInOrder({ patches: [1], systemMetadata: { runId: 'a' } }, { patches: [2, 3], systemMetadata: { runId: 'b' } })).toEqual({ patches: [1, 2, 3], systemMetadata: { runId: 'b' } });
    expect(patchesInOrder({ patches: [1], systemMetadata: { runId: 'a' } }, { patches: [2] })).toEqual({ patches: [1, 2], systemMetadata: { runId: 'a' } });
    expect(patchesInOrder<number, { patches: number[] }>({ patches: [1] }, { patches: [2] })).toEqual({ patches: [1, 2] });
  });
});
