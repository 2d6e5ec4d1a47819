/**
 * Saved views at the service (src/services/viewService.ts): stored as DataHub's
 * dataHubViewInfo aspect, listed per person and globally, changed only by their owner or,
 * for global views, an admin, and the defaults. In process, on a real PostgreSQL.
 */
import { ForbiddenError, NotFoundError, ValidationError } from '../../src/domain/errors.js';
import { ADMIN, READER, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';

let runtime: TestRuntime;
const views = () => runtime.services.views;
const definition = { entityTypes: ['DATASET'], filter: { operator: 'AND', filters: [{ field: 'platform', values: ['hive'] }] } };
const OTHER_READER = { ...READER, actor: 'urn:li:corpuser:reader2' };

beforeAll(async () => {
  runtime = await startTestRuntime({ search: false });
});
afterAll(async () => {
  await runtime?.stop();
});

test('a reader saves a personal view; it is stored as DataHub writes it and listed as theirs only', async () => {
  const { result: view } = await views().create(READER, 'PERSONAL', { name: 'Hive tables', description: 'hive only', definition });
  expect(view.urn).toMatch(/^urn:li:dataHubView:[0-9a-f-]{36}$/);
  const stored = await runtime.services.entities.getAspect(ADMIN, view.urn, 'dataHubViewInfo');
  expect(stored.value).toMatchObject({ name: 'Hive tables', type: 'PERSONAL', created: { actor: READER.actor } });
  expect((await views().listMine(READER, {})).views.map((v) => v.urn)).toContain(view.urn);
  expect((await views().listMine(OTHER_READER, {})).views.map((v) => v.urn)).not.toContain(view.urn);
  expect(await views().get(OTHER_READER, view.urn)).toBeNull();
});

test("listing filters by name and pages, newest change first", async () => {
  const a = (await views().create(WRITER, 'PERSONAL', { name: 'alpha one', definition })).result;
  const b = (await views().create(WRITER, 'PERSONAL', { name: 'alpha two', definition })).result;
  await views().create(WRITER, 'PERSONAL', { name: 'beta', definition });
  const found = await views().listMine(WRITER, { query: 'ALPHA', start: 0, count: 1 });
  expect(found).toMatchObject({ start: 0, count: 1, total: 2 });
  expect(found.views[0]!.urn).toBe(b.urn);
  expect((await views().listMine(WRITER, { query: 'alpha', start: 1, count: 1 })).views[0]!.urn).toBe(a.urn);
});

test("only its owner changes a personal view; another person's is not found for them", async () => {
  const { result: view } = await views().create(READER, 'PERSONAL', { name: 'mine', definition });
  await expect(views().update(OTHER_READER, view.urn, { name: 'theirs' })).rejects.toBeInstanceOf(NotFoundError);
  const { result: changed } = await views().update(READER, view.urn, { name: 'still mine' });
  expect(changed.name).toBe('still mine');
  await views().delete(READER, view.urn);
  expect(await views().get(READER, view.urn)).toBeNull();
});

test('global views are an admin\'s to make and change; everyone lists them', async () => {
  await expect(views().create(WRITER, 'GLOBAL', { name: 'org', definition })).rejects.toBeInstanceOf(ForbiddenError);
  const { result: view } = await views().create(ADMIN, 'GLOBAL', { name: 'org', definition });
  expect((await views().listGlobal(READER, {})).views.map((v) => v.urn)).toContain(view.urn);
  await expect(views().update(WRITER, view.urn, { name: 'mine now' })).rejects.toBeInstanceOf(ForbiddenError);
  await views().delete(ADMIN, view.urn);
});

test('the global default must be a global view; a person\'s default any view they see', async () => {
  const { result: personal } = await views().create(ADMIN, 'PERSONAL', { name: 'admin only', definition });
  const { result: global } = await views().create(ADMIN, 'GLOBAL', { name: 'everyone', definition });
  await expect(views().setGlobalDefault(ADMIN, personal.urn)).rejects.toMatchObject({ field: 'defaultView' });
  await expect(views().setGlobalDefault(WRITER, global.urn)).rejects.toBeInstanceOf(ForbiddenError);
  await views().setGlobalDefault(ADMIN, global.urn);
  expect(await views().globalDefault(READER)).toBe(global.urn);
  await views().setMyDefault(READER, global.urn);
  expect(await views().myDefault(READER)).toBe(global.urn);
  await expect(views().setMyDefault(READER, personal.urn)).rejects.toBeInstanceOf(ValidationError);
  await views().setGlobalDefault(ADMIN, null);
  expect(await views().globalDefault(READER)).toBeNull();
});

test('a bad view changes nothing and names the field', async () => {
  const before = (await views().listMine(READER, {})).total;
  await expect(views().create(READER, 'PERSONAL', { name: 'x', definition: { entityTypes: ['NOPE'], filter: { operator: 'AND', filters: [] } } })).rejects.toMatchObject({ field: 'definition.entityTypes[0]' });
  expect((await views().listMine(READER, {})).total).toBe(before);
});

test("a view keeps the keywords and sort of the search it was saved from; an update's definition replaces them", async () => {
  const sortCriterion = { field: 'structuredProperties.io.acryl.tier', sortOrder: 'DESCENDING' };
  const { result: view } = await views().create(READER, 'PERSONAL', { name: 'Shop by tier', definition: { ...definition, query: 'shop', sortCriterion } });
  const stored = await runtime.services.entities.getAspect(ADMIN, view.urn, 'dataHubViewInfo');
  expect(stored.value).toMatchObject({ definition: { query: 'shop', sortCriterion } });
  expect((await views().get(READER, view.urn))?.definition).toMatchObject({ query: 'shop', sortCriterion });
  const { result: updated } = await views().update(READER, view.urn, { definition });
  expect(updated.definition.query).toBeUndefined();
  expect(updated.definition.sortCriterion).toBeUndefined();
});
