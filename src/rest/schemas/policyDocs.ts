/** Documentation of the policy and access routes (rest/policyRoutes.ts; docs/security.md, "Policies"). */
import { DATASET_URN } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, scopeNote, type JsonSchema, type RouteDoc } from './routeDoc.js';

const INFO = {
  displayName: 'Finance stewards edit finance datasets',
  type: 'METADATA',
  state: 'ACTIVE',
  privileges: ['EDIT_ENTITY_PROPERTIES'],
  actors: { users: [], groups: ['urn:li:corpGroup:finance-stewards'], resourceOwners: false, allUsers: false, allGroups: false },
  resources: {
    allResources: false,
    filter: { criteria: [{ field: 'TYPE', values: ['dataset'], condition: 'EQUALS' }, { field: 'structuredProperties.acme.domain', values: ['finance'], condition: 'EQUALS' }] },
  },
  editable: true,
};
const POLICY = { urn: 'urn:li:dataHubPolicy:finance-stewards', origin: 'stored', shipped: false, lastModified: { time: 1768210200000, actor: 'urn:li:corpuser:alice@example.com' }, dataHubPolicyInfo: INFO };

const POLICY_INFO: JsonSchema = {
  type: 'object',
  description:
    "DataHub's dataHubPolicyInfo: `displayName`, `description`, `type` (METADATA or PLATFORM), `state` (ACTIVE or INACTIVE), `privileges`, `actors` (`users`, `groups`, `resourceOwners`, `allUsers`, `allGroups`), `resources` (`allResources`, `filter.criteria` of `{field, values, condition}` with field TYPE, URN, PLATFORM, DOMAIN, TAG or `structuredProperties.<qualifiedName>`; `privilegeConstraints.criteria` with field PROPERTY naming the properties value and definition privileges cover, or with condition NOT_EQUALS those they leave out).",
  additionalProperties: true,
};
const POLICY_ANSWER: JsonSchema = {
  type: 'object',
  properties: { urn: { type: 'string' }, origin: { type: 'string', enum: ['default', 'stored'] }, shipped: { type: 'boolean' }, lastModified: { type: 'object', nullable: true }, dataHubPolicyInfo: POLICY_INFO },
};
const ID = { id: { description: 'The policy id, or its urn (urn:li:dataHubPolicy:<id>).', schema: { type: 'string' }, example: 'finance-stewards' } };
const MANAGE = '\n\nChanges are decided in the write path: they need the **MANAGE_POLICIES** privilege and a token with **admin** scope.';
const refused = (operation: string) => ({ 403: ERRORS.forbidden('admin', operation), ...commonErrors('read', operation) });
const invalid = ERRORS.validation({ privilege: { summary: 'Unknown privilege', value: { error: 'Validation Error', message: 'policy.privileges[0] "EDIT_EVERYTHING" is not a privilege; use one of VIEW_ENTITY_PAGE, EDIT_ENTITY, ...' } } });

export const POLICY_ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /openapi/v3/policies': {
    operationId: 'listPolicies',
    summary: 'List the policies in force',
    description: 'The shipped defaults (until replaced) and the stored policies, in urn order; those you may read.' + scopeNote('read'),
    tags: ['Policies'],
    query: {
      start: { description: 'Offset.', schema: { type: 'integer', minimum: 0 } },
      count: { description: 'Page size (at most 1000).', schema: { type: 'integer', minimum: 0 } },
      query: { description: 'Words to find in the name, description or urn.', schema: { type: 'string' } },
    },
    responses: {
      200: { description: 'A page of policies.', schema: { type: 'object', properties: { start: { type: 'integer' }, count: { type: 'integer' }, total: { type: 'integer' }, policies: { type: 'array', items: POLICY_ANSWER } } }, examples: { one: { summary: 'One policy', value: { start: 0, count: 1, total: 1, policies: [POLICY] } } } },
      ...commonErrors('read', 'policies.list'),
    },
  },
  'GET /openapi/v3/policies/{id}': {
    operationId: 'getPolicy',
    summary: 'Read one policy',
    description: 'A policy by id or urn.' + scopeNote('read'),
    tags: ['Policies'],
    path: ID,
    responses: {
      200: { description: 'The policy.', schema: POLICY_ANSWER, examples: { policy: { summary: 'A policy', value: POLICY } } },
      404: ERRORS.notFound({ none: { summary: 'No such policy', value: { error: 'Not Found', message: 'Policy urn:li:dataHubPolicy:none does not exist' } } }),
      ...commonErrors('read', 'policies.get'),
    },
  },
  'POST /openapi/v3/policies': {
    operationId: 'createPolicy',
    summary: 'Create a policy',
    description: 'A new policy; `id` names it (a random one when absent).' + MANAGE,
    tags: ['Policies'],
    body: { description: 'The policy: `id` and dataHubPolicyInfo.', schema: POLICY_INFO, examples: { finance: { summary: 'Finance stewards', value: { id: 'finance-stewards', ...INFO } } } },
    responses: { 200: { description: 'The policy created.', schema: POLICY_ANSWER, examples: { created: { summary: 'Created', value: POLICY } } }, 400: invalid, ...bodyErrors(), ...refused('policies.create') },
  },
  'PUT /openapi/v3/policies/{id}': {
    operationId: 'updatePolicy',
    summary: 'Replace a policy',
    description: 'The whole policy is replaced (a shipped default too: it is then stored). Set `state` to INACTIVE to turn one off.' + MANAGE,
    tags: ['Policies'],
    path: ID,
    body: { description: 'The policy as dataHubPolicyInfo.', schema: POLICY_INFO, examples: { finance: { summary: 'Finance stewards', value: INFO } } },
    responses: { 200: { description: 'The policy as stored.', schema: POLICY_ANSWER, examples: { updated: { summary: 'Updated', value: POLICY } } }, 400: invalid, ...bodyErrors(), ...refused('policies.update') },
  },
  'DELETE /openapi/v3/policies/{id}': {
    operationId: 'deletePolicy',
    summary: 'Delete a policy',
    description: "A stored policy is deleted; if its urn is a shipped default's, the default is in force as shipped again (`defaultRestored`). A default in force as shipped is turned off with an update, not deleted." + MANAGE,
    tags: ['Policies'],
    path: ID,
    responses: {
      200: { description: 'Deleted.', schema: { type: 'object', properties: { urn: { type: 'string' }, defaultRestored: { type: 'boolean' } } }, examples: { deleted: { summary: 'Deleted', value: { urn: POLICY.urn, defaultRestored: false } } } },
      400: ERRORS.validation({ shipped: { summary: 'A shipped default', value: { error: 'Validation Error', message: 'Policy urn:li:dataHubPolicy:propgraph-default-read is a shipped default and cannot be deleted; turn it off by updating it with state INACTIVE' } } }),
      404: ERRORS.notFound({ none: { summary: 'No such policy', value: { error: 'Not Found', message: 'Policy urn:li:dataHubPolicy:none does not exist' } } }),
      ...refused('policies.delete'),
    },
  },
  'POST /openapi/v3/policies/apply': {
    operationId: 'applyPolicies',
    summary: 'Apply a file of policies (policy as code)',
    description:
      'Creates and updates the policies listed, all or nothing; with `prune=true`, also deletes stored policies the file leaves out and turns off shipped defaults it leaves out. Answers each change and, for each, which actors gain or lose which privileges and how resources change. With `dryRun=true`, changes nothing.' +
      MANAGE,
    tags: ['Policies'],
    query: {
      dryRun: { description: 'Decide and answer, write nothing.', schema: { type: 'boolean' } },
      prune: { description: 'Make the file exactly what is in force.', schema: { type: 'boolean' } },
    },
    body: { description: '`{policies: [{id, ...dataHubPolicyInfo}]}`.', schema: { type: 'object', properties: { policies: { type: 'array', items: POLICY_INFO } } }, examples: { one: { summary: 'One policy', value: { policies: [{ id: 'finance-stewards', ...INFO }] } } } },
    responses: {
      200: {
        description: 'The changes.',
        schema: { type: 'object', properties: { dryRun: { type: 'boolean' }, changes: { type: 'array', items: { type: 'object' } } } },
        examples: { created: { summary: 'A new policy', value: { dryRun: true, changes: [{ urn: POLICY.urn, name: INFO.displayName, change: 'create', forWhom: [{ actor: 'urn:li:corpGroup:finance-stewards', gains: ['EDIT_ENTITY_PROPERTIES'], loses: [] }] }] } } },
      },
      400: invalid,
      ...bodyErrors(),
      ...refused('policies.apply'),
    },
  },
  'GET /openapi/v3/access/explain': {
    operationId: 'explainAccess',
    summary: 'Why a principal may or may not do something',
    description: 'For a principal (you, by default), a privilege and an entity (and property): allowed or not, the policies that grant it, and why each other policy naming the privilege does not. Asking about someone else needs MANAGE_POLICIES.' + scopeNote('read'),
    tags: ['Policies'],
    query: {
      privilege: { description: 'A privilege.', schema: { type: 'string' }, required: true, example: 'EDIT_ENTITY_PROPERTIES' },
      urn: { description: 'The entity (absent for platform privileges).', schema: { type: 'string' }, example: DATASET_URN },
      property: { description: 'For value and definition privileges: the property.', schema: { type: 'string' }, example: 'acme.pii' },
      principal: { description: "A principal's urn or a person's id.", schema: { type: 'string' } },
      groups: { description: 'Their groups (comma-separated).', schema: { type: 'string' } },
      scope: { description: "Their token's scope.", schema: { type: 'string', enum: ['read', 'write', 'admin'] } },
    },
    responses: {
      200: {
        description: 'The answer.',
        schema: { type: 'object' },
        examples: { no: { summary: 'Refused', value: { principal: 'urn:li:corpuser:sam@example.com', groups: ['stewards'], scope: 'write', basis: 'caller', privilege: 'EDIT_ENTITY_PROPERTIES', resource: DATASET_URN, property: 'urn:li:structuredProperty:acme.pii', allowed: false, withinScope: true, bypass: false, grantedBy: [], notGranting: [{ urn: 'urn:li:dataHubPolicy:privacy', name: 'Privacy team edits PII', refusal: 'its actors do not include urn:li:corpuser:sam@example.com or the groups stewards' }], summary: 'urn:li:corpuser:sam@example.com may not EDIT_ENTITY_PROPERTIES ...' } } },
      },
      400: invalid,
      ...refused('access.explain'),
    },
  },
  'GET /openapi/v3/access/who': {
    operationId: 'whoCould',
    summary: 'Who could do something to an entity',
    description: 'The policies that grant a privilege on an entity (and property), with the actors they grant to; the owners, when a policy grants to owners.' + scopeNote('read'),
    tags: ['Policies'],
    query: {
      privilege: { description: 'A privilege.', schema: { type: 'string' }, required: true, example: 'EDIT_ENTITY_PROPERTIES' },
      urn: { description: 'The entity.', schema: { type: 'string' }, example: DATASET_URN },
      property: { description: 'For value and definition privileges: the property.', schema: { type: 'string' }, example: 'acme.pii' },
    },
    responses: {
      200: { description: 'The grantees.', schema: { type: 'object' }, examples: { privacy: { summary: 'The privacy team', value: { privilege: 'EDIT_ENTITY_PROPERTIES', resource: DATASET_URN, property: 'urn:li:structuredProperty:acme.pii', scopeNeeded: 'write', grantees: [{ policy: { urn: 'urn:li:dataHubPolicy:privacy', name: 'Privacy team edits PII' }, actors: ['urn:li:corpGroup:privacy'] }], owners: [] } } } },
      400: invalid,
      ...commonErrors('read', 'access.whoCould'),
    },
  },
};
