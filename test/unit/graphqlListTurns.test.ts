import { buildSchema, execute, parse } from 'graphql';
import { completeListsInTurns, LONG_LIST } from '../../src/graphql/listTurns.js';
import { loopTurn, SLICE_MS } from '../../src/platform/turns.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

const SDL = 'type Hit { urn: String! tags: [String!] } type Query { hits(n: Int!): [Hit!]! later(n: Int!): [Hit] }';
const hits = (n: number) => Array.from({ length: n }, (_, i) => ({ urn: `urn:li:dataset:${i}`, tags: i % 3 === 0 ? ['a', 'b'] : null }));
const rootValue = {
  hits: ({ n }: { n: number }) => hits(n),
  // A list of promises, as `_entities` resolves representations: one of them fails.
  later: ({ n }: { n: number }) => hits(n).map((h, i) => (i === 7 ? Promise.reject(new Error('no such entity')) : Promise.resolve(h))),
};
const document = parse(`{ hits(n: ${LONG_LIST * 5}) { urn tags } short: hits(n: 3) { urn } later(n: ${LONG_LIST}) { urn } }`);

function schema(inTurns: boolean) {
  const built = buildSchema(SDL);
  if (inTurns) completeListsInTurns(built);
  return built;
}

test('long lists give the event loop a turn before they are completed, to the same answer', async () => {
  const plain = await execute({ schema: schema(false), document, rootValue });
  expect(plain.errors).toHaveLength(1);
  // A slice begun and spent in this pass, as by the request's own work before its lists.
  const wait = loopTurn();
  if (wait) await wait;
  busy(SLICE_MS + 1);
  let ran = false;
  setImmediate(() => {
    ran = true;
  });
  const answered = execute({ schema: schema(true), document, rootValue });
  expect(answered).toBeInstanceOf(Promise);
  const inTurns = await answered;
  expect(ran).toBe(true);
  expect(JSON.stringify(inTurns)).toBe(JSON.stringify(plain));
});

test('without long lists nothing waits: the answer comes in the same run', () => {
  const small = parse('{ hits(n: 3) { urn tags } }');
  busy(SLICE_MS + 1);
  const answered = execute({ schema: schema(true), document: small, rootValue });
  expect(answered).not.toBeInstanceOf(Promise);
  expect(answered).toEqual(execute({ schema: schema(false), document: small, rootValue }));
});
