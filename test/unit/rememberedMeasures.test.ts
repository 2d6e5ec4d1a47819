/**
 * The document walk remembers what it measured: each merged level once per document
 * (limits.ts), and the operation plugin each operation's measure per the counts its
 * variables give (rememberedMeasures.ts). What is remembered must be what a fresh walk
 * finds: the costs of DataHub's web app's operations are pinned as the walk found them
 * before it remembered anything, and a remembered measure still follows the counts.
 */
import { isObjectType, Kind, parse, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { DEFAULT_QUERY_LIMITS, measureSelection } from '../../src/graphql/limits.js';
import { RememberedMeasures } from '../../src/graphql/rememberedMeasures.js';
import { loadWebAppOperations, subgraphSchema } from '../support/webAppOperations.js';

const L = DEFAULT_QUERY_LIMITS;

function parts(source: string): { document: DocumentNode; operation: OperationDefinitionNode; fragments: (name: string) => FragmentDefinitionNode | undefined } {
  const document = parse(source);
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return { document, operation, fragments: (name) => fragments.get(name) };
}

test("DataHub's web app's operations cost what the walk found before it remembered levels", () => {
  // Measured by the walk of ad927cb (no memory), against schema.graphql's object types.
  const before: Record<string, number> = {
    appConfig: 137, getMe: 245, getGlobalViewsSettings: 3, getHomePageSettings: 169, batchGetStepStates: 9, getQuickFilters: 26, listMyViews: 24, listGlobalViews: 24,
    listRecommendations: 722, getAutoCompleteMultipleResults: 259, getSearchResultsForMultipleTrimmed: 352, getLatestProductUpdate: 21, getUserGroupsUrns: 13, listPosts: 23,
    listRoles: 62, getDataProductsList: 153, batchUpdateStepStates: 6, getGrantedPrivileges: 3, getSearchAcrossLineageCounts: 150, getSearchResultsForMultiple: 3571,
    createStructuredProperty: 117, getAutoCompleteResults: 256, updateStructuredProperty: 117, getDataset: 10827, getFormsForEntity: 758, getDatasetSchema: 5320,
    getSchemaVersionList: 12, getSchemaField: 2111, getEntitiesNotes: 29, getDataProfiles: 39, upsertStructuredProperties: 180, getEntities: 3459, aggregateAcrossEntities: 72,
    getBrowseResultsV2: 36, getEntityDisplayName: 22, getDownloadScrollResults: 1766, createView: 19, getView: 19, updateView: 19, updateCorpUserViewsSettings: 1,
    updateGlobalViewsSettings: 1, deleteView: 1, removeStructuredProperties: 180, deleteStructuredProperty: 1,
  };
  const schema = subgraphSchema();
  const objects = (name: string) => isObjectType(schema.getType(name));
  const found = Object.fromEntries(
    loadWebAppOperations().operations.map((op) => {
      const { operation, fragments } = parts(op.document);
      return [op.name, measureSelection(operation.selectionSet, fragments, L, undefined, objects).cost];
    }),
  );
  expect(found).toEqual(before);
});

test('a fragment spread under many fields is measured as often as it is placed, though walked once', () => {
  // F0 places F1 under two fields, F1 places F2 under two, ...: 2^k copies of F(k)'s field.
  const levels = 12;
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Dataset { a { ...F${i + 1} } b { ...F${i + 1} } }`).join(' ');
  const { operation, fragments: named } = parts(`{ dataset(urn: "u") { ...F0 } } ${fragments} fragment F${levels} on Dataset { urn }`);
  // dataset, then 2 + 4 + ... + 2^12 fields, then 2^12 urns.
  const expected = 1 + (2 ** (levels + 1) - 2) + 2 ** levels;
  expect(measureSelection(operation.selectionSet, named, { ...L, maxDepth: 100 }).cost).toBe(expected);
});

describe('the operation plugin remembers each operation per its counts', () => {
  const source = 'query q($n: Int, $i: ListTestsInput, $u: String) { a: listTests(input: {count: $n}) { total } b: listTests(input: $i) { total } dataset(urn: $u) { urn } }';

  test('the same counts find the same measure, other counts their own', () => {
    const remembered = new RememberedMeasures(L);
    const { document, operation, fragments } = parts(source);
    const objects = () => true;
    const first = remembered.measure(document, operation, fragments, { n: 700, i: { count: 300 }, u: 'x' }, objects);
    expect(first.results).toBe(1000);
    // Another urn: nothing the walk reads changed, so it is not walked again.
    expect(remembered.measure(document, operation, fragments, { n: 700, i: { count: 300 }, u: 'y' }, objects)).toBe(first);
    expect(remembered.measure(document, operation, fragments, { n: 1000, i: { count: 1000 }, u: 'x' }, objects).results).toBe(2000);
    expect(remembered.measure(document, operation, fragments, {}, objects).results).toBe(0);
    // A number where an input is expected and an input where a number is: each read as a fresh walk reads it.
    expect(remembered.measure(document, operation, fragments, { n: { count: 700 }, i: 300 }, objects).results).toBe(measureSelection(operation.selectionSet, fragments, L, { n: { count: 700 }, i: 300 }).results);
    expect(remembered.measure(document, operation, fragments, { n: { count: 700 }, i: 300 }, objects).results).toBe(0);
  });

  test('a cost is the walk of its selection set', () => {
    const remembered = new RememberedMeasures(L);
    const { operation, fragments } = parts(source);
    expect(remembered.cost(operation.selectionSet, fragments, undefined)).toBe(measureSelection(operation.selectionSet, fragments, L).cost);
    expect(remembered.cost(operation.selectionSet, fragments, undefined)).toBe(6);
  });
});
