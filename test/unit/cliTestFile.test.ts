/** The tests file of `propgraph tests upsert -f` (cli/files/testFile.ts), read in process. */
import { parseTestFile } from '../../src/cli/files/testFile.js';
import { parseYaml } from '../../src/cli/files/yamlFile.js';

const file = (text: string) => parseYaml('tests.yaml', text);

test('a definition written as YAML keeps YAML types: booleans stay booleans, values stay text', () => {
  const [entry] = parseTestFile(
    file(
      [
        '- id: no-pii',
        '  name: No PII',
        '  category: Privacy',
        '  definition:',
        '    on: {types: [dataset]}',
        '    rules:',
        '      - {property: "structuredProperties.acme.privacy.retentionDays", operator: greater_than, values: ["30"], negate: true}',
      ].join('\n'),
    ),
  );
  expect(entry).toMatchObject({ urn: 'urn:li:test:no-pii', id: 'no-pii', name: 'No PII', category: 'Privacy' });
  expect(JSON.parse(entry!.json)).toEqual({
    on: { types: ['dataset'] },
    rules: [{ property: 'structuredProperties.acme.privacy.retentionDays', operator: 'greater_than', values: ['30'], negate: true }],
  });
});

test('a definition given as JSON text is sent as written; urn and id must agree', () => {
  const [entry] = parseTestFile(file('urn: urn:li:test:t1\nname: T\ncategory: C\ndefinition: \'{"on":{"types":["dataset"]},"rules":[]}\'\n'));
  expect(entry!.json).toBe('{"on":{"types":["dataset"]},"rules":[]}');
  expect(() => parseTestFile(file('id: a\nurn: urn:li:test:b\nname: T\ncategory: C\ndefinition: {}\n'))).toThrow(
    'tests.yaml:2: entry 1 (id: a): urn: urn:li:test:b does not match id a',
  );
});
