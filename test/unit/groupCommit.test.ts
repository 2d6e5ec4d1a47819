/**
 * Group commit (services/aspects/groupCommit.ts, issue #44) as a property: whatever writes
 * arrive, in whatever order and timing, every one is answered with its own result; no
 * group holds two writes naming the same entity; the writes naming an entity are written
 * in the order they arrived; a group holds at most the entity bound; a lone write starts
 * at once; at most two statements run at once, never two naming the same entity, so a
 * statement stuck on a lock holds up only the writes of its entities.
 */
import { GroupCommit, type GroupMember } from '../../src/services/aspects/groupCommit.js';
import { nonEmpty } from '../support/nonEmpty.js';

interface Write extends GroupMember {
  readonly id: number;
}

/** A small deterministic random source (mulberry32), so a failing seed can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const urn = (n: number) => ({ urn: { value: `urn:li:dataset:(urn:li:dataPlatform:hive,t${n},PROD)` } });

test.each(Array.from({ length: 25 }, (_, i) => [i + 1]))('random writes with seed %i: own answers, no entity twice in a group, per-entity order kept, bounded groups', async (seed) => {
  const next = random(seed);
  const bound = 6;
  const commit = new GroupCommit<Write, string>(bound);
  const groups: Write[][] = [];
  const running = new Set<string>();
  let most = 0;
  let statements = 0;
  const run = async (units: Write[]) => {
    groups.push(units);
    const urns = units.flatMap((u) => u.entities.map((e) => e.urn.value));
    // No statement in flight names an entity of this one.
    expect(urns.filter((u) => running.has(u))).toEqual([]);
    for (const u of urns) running.add(u);
    most = Math.max(most, ++statements);
    // The statement takes a while: more writes arrive meanwhile.
    await new Promise((r) => setTimeout(r, Math.floor(next() * 3)));
    for (const u of urns) running.delete(u);
    statements--;
    return units.map((u) => `answer ${u.id}`);
  };
  const writes: Write[] = Array.from({ length: 60 }, (_, id) => ({ id, entities: Array.from({ length: 1 + Math.floor(next() * 3) }, () => urn(Math.floor(next() * 8))).filter((e, i, all) => all.findIndex((f) => f.urn.value === e.urn.value) === i) }));
  const submitted: number[] = [];
  const answers = await Promise.all(
    writes.map(async (w) => {
      await new Promise((r) => setTimeout(r, Math.floor(next() * 5)));
      submitted.push(w.id);
      return { id: w.id, answer: await commit.write(w, run) };
    }),
  );
  expect(answers.map((a) => a.answer)).toEqual(writes.map((w) => `answer ${w.id}`));
  expect(groups.flat().map((w) => w.id).sort((a, b) => a - b)).toEqual(writes.map((w) => w.id));
  for (const g of nonEmpty(groups)) {
    const urns = g.flatMap((w) => w.entities.map((e) => e.urn.value));
    expect(new Set(urns).size).toBe(urns.length);
    if (g.length > 1) expect(urns.length).toBeLessThanOrEqual(bound);
  }
  expect(groups.length).toBeLessThan(writes.length);
  expect(most).toBeLessThanOrEqual(2);
  // Per entity, the writes naming it were written in the order they were submitted.
  const written = groups.flat();
  for (let n = 0; n < 8; n++) {
    const naming = (ids: readonly number[]) => ids.filter((id) => writes[id]!.entities.some((e) => e.urn.value === urn(n).urn.value));
    expect(naming(written.map((w) => w.id))).toEqual(naming(submitted));
  }
});

test('the writes naming one entity are written in the order they were submitted', async () => {
  const commit = new GroupCommit<Write, number>(1000);
  const order: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const run = async (units: Write[]) => {
    await gate;
    order.push(...units.map((u) => u.id));
    return units.map((u) => u.id);
  };
  const shared = urn(1);
  // The first starts at once and holds the statement; the others wait, then must keep their order on the shared entity.
  const all = [0, 1, 2, 3].map((id) => commit.write({ id, entities: id === 2 ? [urn(9)] : [shared] }, run));
  release();
  expect(await Promise.all(all)).toEqual([0, 1, 2, 3]);
  expect(order.filter((id) => id !== 2)).toEqual([0, 1, 3]);
});

test('a lone write starts at once, and a failed statement fails every write of its group only', async () => {
  const commit = new GroupCommit<Write, string>();
  let calls = 0;
  const run = async (units: Write[]) => {
    calls++;
    if (units.some((u) => u.id === 7)) throw new Error('the database went away');
    return units.map(() => 'ok');
  };
  expect(await commit.write({ id: 1, entities: [urn(1)] }, run)).toBe('ok');
  expect(calls).toBe(1);
  await expect(commit.write({ id: 7, entities: [urn(2)] }, run)).rejects.toThrow('the database went away');
  expect(await commit.write({ id: 8, entities: [urn(3)] }, run)).toBe('ok');
});

test('a statement stuck on a lock holds up only the writes of its entities: others go on in the other slot', async () => {
  const commit = new GroupCommit<Write, string>();
  let release!: () => void;
  const stuck = new Promise<void>((r) => (release = r));
  const started: number[][] = [];
  const run = async (units: Write[]) => {
    started.push(units.map((u) => u.id));
    if (units.some((u) => u.id === 1)) await stuck;
    return units.map((u) => `ok ${u.id}`);
  };
  const first = commit.write({ id: 1, entities: [urn(1)] }, run);
  // Behind the stuck statement: one write of its entity, then writes of others.
  const sameEntity = commit.write({ id: 2, entities: [urn(1)] }, run);
  const others = [3, 4, 5].map((id) => commit.write({ id, entities: [urn(id)] }, run));
  expect(await Promise.all(others)).toEqual(['ok 3', 'ok 4', 'ok 5']);
  expect(started.flat()).not.toContain(2);
  release();
  expect(await Promise.all([first, sameEntity])).toEqual(['ok 1', 'ok 2']);
  expect(started.at(-1)).toEqual([2]);
});
