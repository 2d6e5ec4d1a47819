/** The replay runner's JSONPath subset and check operators (test/fixtures/datahub-client/README.md). */
import { checkProblem, select, substitute } from '../support/datahubReplay.js';

const body = { aspect: { 'com.x.A': { n: 30, list: [{ u: 'a' }, { u: 'b' }] } }, empty: [] };

test('paths: names, quoted keys, indexes and [*]', () => {
  expect(select(body, '$.aspect["com.x.A"].n')).toEqual([30]);
  expect(select(body, '$.aspect["com.x.A"].list[1].u')).toEqual(['b']);
  expect(select(body, '$.aspect["com.x.A"].list[*].u')).toEqual(['a', 'b']);
  expect(select(body, '$.missing.deeper')).toEqual([]);
});

test('operators', () => {
  expect(checkProblem(body, { path: '$.aspect["com.x.A"].n', equals: 30.0 })).toBeUndefined();
  expect(checkProblem(body, { path: '$.aspect["com.x.A"].list[*].u', includes: 'b' })).toBeUndefined();
  expect(checkProblem(body, { path: '$.aspect["com.x.A"].list[*].u', excludes: 'c' })).toBeUndefined();
  expect(checkProblem(body, { path: '$.aspect', keysEqual: ['com.x.A'] })).toBeUndefined();
  expect(checkProblem(body, { path: '$.empty', length: 0 })).toBeUndefined();
  expect(checkProblem(body, { path: '$.nothing', type: 'number', absentOk: true })).toBeUndefined();
  expect(checkProblem(body, { path: '$.nothing', exists: false })).toBeUndefined();
  expect(checkProblem(body, { path: '$.nothing', type: 'number' })).toBe('$.nothing: points at nothing');
  expect(checkProblem(body, { path: '$.aspect["com.x.A"].n', oneOf: [1, 2] })).toBe('$.aspect["com.x.A"].n: expected one of [1,2], found 30');
  expect(checkProblem(body, { path: '$.aspect["com.x.A"].list[*].u', matches: '^a$' })).toMatch(/expected a string matching/);
});

test('substitution replaces ${name} and refuses names not defined', () => {
  expect(substitute('Bearer ${token}, $x', { token: 't' })).toBe('Bearer t, $x');
  expect(() => substitute('${traceId}', {})).toThrow('fixture uses ${traceId}, which is not defined at this step');
});
