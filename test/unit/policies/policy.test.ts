/**
 * A policy is read strictly (src/domain/policies/policy.ts): DataHub's dataHubPolicyInfo
 * shape, normalised (names to URNs, types to their names), and every mistake a 400
 * naming its field and how to fix it. Policies only grant: no NOT_EQUALS on resources;
 * on the properties a value privilege covers, NOT_EQUALS names those left out.
 */
import { ValidationError } from '../../../src/domain/errors.js';
import { parsePolicy, policyInfoOf, policyUrn } from '../../../src/domain/policies/policy.js';

const URN = policyUrn('finance');
const base = { displayName: 'Finance stewards', privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['finance'] } };

function refused(input: unknown): ValidationError {
  try {
    parsePolicy(URN, input);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('accepted');
}

test('a policy in DataHub shape reads back normalised: groups and users as urns, types by name, properties by urn', () => {
  const p = parsePolicy(URN, {
    ...base,
    actors: { users: ['ana@example.com', 'urn:li:corpuser:__service_loader'], groups: ['finance', 'urn:li:corpGroup:audit'] },
    resources: {
      filter: {
        criteria: [
          { field: 'TYPE', values: ['DATASET', 'schemaField'], condition: 'EQUALS' },
          { field: 'structuredProperties.acme.domain', values: ['finance'] },
          { field: 'PLATFORM', values: ['hive'] },
          { field: 'DOMAIN', values: ['finance'] },
        ],
      },
      privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.classification', 'urn:li:structuredProperty:acme.owner'] }] },
    },
  });
  expect(p.actors.users).toEqual(['urn:li:corpuser:ana@example.com', 'urn:li:corpuser:__service_loader']);
  expect(p.actors.groups).toEqual(['urn:li:corpGroup:finance', 'urn:li:corpGroup:audit']);
  expect(p.criteria).toEqual([
    { field: 'TYPE', values: ['dataset', 'schemaField'], condition: 'EQUALS' },
    { field: { property: 'urn:li:structuredProperty:acme.domain' }, values: ['finance'], condition: 'EQUALS' },
    { field: 'PLATFORM', values: ['urn:li:dataPlatform:hive'], condition: 'EQUALS' },
    { field: 'DOMAIN', values: ['urn:li:domain:finance'], condition: 'EQUALS' },
  ]);
  expect(p.properties).toEqual(['urn:li:structuredProperty:acme.classification', 'urn:li:structuredProperty:acme.owner']);
  expect(p).toMatchObject({ type: 'METADATA', state: 'ACTIVE', editable: true, name: 'Finance stewards' });
});

test('what is stored reads back as the same policy', () => {
  const p = parsePolicy(URN, { ...base, resources: { filter: { criteria: [{ field: 'URN', values: ['urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)'] }] } } });
  expect(parsePolicy(URN, policyInfoOf(p))).toEqual(p);
});

test('NOT_EQUALS on the properties covered leaves them out of every property (or of those named), and is stored as given', () => {
  const p = parsePolicy(URN, { ...base, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'], condition: 'NOT_EQUALS' }] } } });
  expect([p.properties, p.exceptProperties]).toEqual([null, ['urn:li:structuredProperty:acme.pii']]);
  expect(policyInfoOf(p).resources).toEqual({ allResources: true, privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['urn:li:structuredProperty:acme.pii'], condition: 'NOT_EQUALS' }] } });
  expect(parsePolicy(URN, policyInfoOf(p))).toEqual(p);
  const both = parsePolicy(URN, { ...base, policyConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii', 'acme.tier'] }, { field: 'PROPERTY', values: ['acme.pii'], condition: 'NOT_EQUALS' }] } });
  expect([both.properties, both.exceptProperties]).toEqual([['urn:li:structuredProperty:acme.pii', 'urn:li:structuredProperty:acme.tier'], ['urn:li:structuredProperty:acme.pii']]);
});

test("DataHub's older resource form (type and resources) reads as criteria", () => {
  const p = parsePolicy(URN, { ...base, resources: { type: 'dataset', resources: ['urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)'] } });
  expect(p.criteria.map((c) => c.field)).toEqual(['TYPE', 'URN']);
});

test.each([
  ['an unknown privilege', { ...base, privileges: ['EDIT_EVERYTHING'] }, 'policy.privileges[0]', /is not a privilege; use one of VIEW_ENTITY_PAGE/],
  ['a platform privilege in a metadata policy', { ...base, privileges: ['MANAGE_POLICIES'] }, 'policy.privileges[0]', /grant it in a PLATFORM policy/],
  ['resources on a platform policy', { ...base, type: 'PLATFORM', privileges: ['BULK_EDIT'], resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }] } } }, 'policy.resources', /PLATFORM policy grants on nothing/],
  ['NOT_EQUALS on a resource (policies only grant)', { ...base, resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'], condition: 'NOT_EQUALS' }] } } }, 'policy.resources.filter.criteria[0].condition', /policies only grant/],
  ['STARTS_WITH on the properties covered', { ...base, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme'], condition: 'STARTS_WITH' }] } } }, 'policy.resources.privilegeConstraints.criteria[0].condition', /EQUALS, NOT_EQUALS/],
  ['NOT_EQUALS on a platform policy', { ...base, type: 'PLATFORM', privileges: ['BULK_EDIT'], policyConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'], condition: 'NOT_EQUALS' }] } }, 'policy.resources', /PLATFORM policy grants on nothing/],
  ['STARTS_WITH on anything but URN', { ...base, resources: { filter: { criteria: [{ field: 'DOMAIN', values: ['f'], condition: 'STARTS_WITH' }] } } }, 'policy.resources.filter.criteria[0].condition', /applies to URN only/],
  ['an unknown resource field', { ...base, resources: { filter: { criteria: [{ field: 'COLOUR', values: ['red'] }] } } }, 'policy.resources.filter.criteria[0].field', /use one of TYPE, URN, PLATFORM, DOMAIN, TAG, structuredProperties/],
  ['an unknown entity type', { ...base, resources: { filter: { criteria: [{ field: 'TYPE', values: ['spreadsheet'] }] } } }, 'policy.resources.filter.criteria[0].values[0]', /not an entity type/],
  ['a criterion with no values', { ...base, resources: { filter: { criteria: [{ field: 'TYPE', values: [] }] } } }, 'policy.resources.filter.criteria[0].values', /is empty/],
  ['a URN that does not parse', { ...base, resources: { filter: { criteria: [{ field: 'URN', values: ['not-a-urn'] }] } } }, 'policy.resources.filter.criteria[0].values[0]', /is not a urn/],
  ['nobody as actors', { ...base, actors: {} }, 'policy.actors', /names nobody/],
  ['a user id that is no plain identifier', { ...base, actors: { users: ['ana smith'] } }, 'policy.actors.users[0]', /holds a character/],
  ['no name', { ...base, displayName: ' ' }, 'policy.displayName', /is required/],
  ['no privileges', { ...base, privileges: [] }, 'policy.privileges', /grants at least one of/],
  ['an unknown state', { ...base, state: 'ON' }, 'policy.state', /ACTIVE, INACTIVE/],
  ['allResources and a filter', { ...base, resources: { allResources: true, filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }] } } }, 'policy.resources.allResources', /leave out one or the other/],
  ['a constraint on anything but properties', { ...base, resources: { privilegeConstraints: { criteria: [{ field: 'TAG', values: ['pii'] }] } } }, 'policy.resources.privilegeConstraints.criteria[0].field', /must be PROPERTY/],
])('%s is refused naming the field', (_what, input, field, message) => {
  const err = refused(input);
  expect(err.field).toBe(field);
  expect(err.message).toMatch(message);
});
