/**
 * A CSV import's check (src/domain/valueImport.ts): values come in as written, so a file
 * exported and imported again changes nothing (spaces, a tab or a CR at a value's ends
 * included; bounds' report on the round trip), and numbers still read with spaces around them.
 */
import { checkImport } from '../../src/domain/valueImport.js';
import { effectiveDefinition } from '../../src/domain/propertyDefinition.js';
import type { DefinitionState } from '../../src/domain/structuredProperties.js';

const NOTE = 'urn:li:structuredProperty:imp.note';
const SIZE = 'urn:li:structuredProperty:imp.size';
const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,imp.d,PROD)';

const state = (urn: string, valueType: string, cardinality: 'SINGLE' | 'MULTIPLE'): DefinitionState => ({
  definition: effectiveDefinition(urn, { qualifiedName: urn.split(':').pop()!, valueType, entityTypes: ['urn:li:entityType:datahub.dataset'], cardinality }),
  removed: false,
});
const definitions = new Map([
  [NOTE, state(NOTE, 'urn:li:dataType:datahub.string', 'MULTIPLE')],
  [SIZE, state(SIZE, 'urn:li:dataType:datahub.number', 'SINGLE')],
]);

describe('an import takes values as written', () => {
  test.each([[' padded '], ['\tled by a tab'], ['ends in a CR\r'], ['  ']])('the string %j is set as it is', (value) => {
    const { edits, problems } = checkImport([NOTE], [{ line: 2, urn: D, cells: [[value]] }], definitions, new Map([[D, undefined]]));
    expect(problems).toEqual([]);
    expect(edits).toHaveLength(1);
    expect(edits[0]!.cells.get(NOTE)).toEqual([{ string: value }]);
  });

  test('a number with spaces around it is the number; an empty cell removes the property', () => {
    const { edits, problems } = checkImport([SIZE, NOTE], [{ line: 2, urn: D, cells: [[' 42 '], []] }], definitions, new Map([[D, undefined]]));
    expect(problems).toEqual([]);
    expect(edits[0]!.cells.get(SIZE)).toEqual([{ double: 42 }]);
    expect(edits[0]!.cells.get(NOTE)).toBeNull();
  });
});
