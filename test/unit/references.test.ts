/** What deleteReferences finds and removes (domain/references.ts). */
import { referenceRulesFor, REFERENCE_RULES } from '../../src/domain/references.js';

const TAG = 'urn:li:tag:pii';
const rule = (aspect: string) => REFERENCE_RULES.find((r) => r.aspect === aspect)!;

test('a tag is named by globalTags and by the tags of schema fields', () => {
  expect(referenceRulesFor('tag').map((r) => r.aspect)).toEqual(['globalTags', 'schemaMetadata', 'editableSchemaMetadata']);
  expect(referenceRulesFor('corpuser').map((r) => r.relationship)).toEqual(['OwnedBy']);
  expect(referenceRulesFor('dataset')).toEqual([]);
});

test('removing a tag from globalTags keeps the other tags and fields', () => {
  expect(rule('globalTags').remove({ tags: [{ tag: TAG }, { tag: 'urn:li:tag:keep', context: 'c' }], extra: 1 }, TAG)).toEqual({ tags: [{ tag: 'urn:li:tag:keep', context: 'c' }], extra: 1 });
});

test('removing a tag from a schema takes it out of every field, terms untouched', () => {
  const schema = {
    schemaName: 's',
    fields: [
      { fieldPath: 'a', globalTags: { tags: [{ tag: TAG }] }, glossaryTerms: { terms: [{ urn: 'urn:li:glossaryTerm:t' }] } },
      { fieldPath: 'b' },
    ],
  };
  expect(rule('schemaMetadata').remove(schema, TAG)).toEqual({
    schemaName: 's',
    fields: [{ fieldPath: 'a', globalTags: { tags: [] }, glossaryTerms: { terms: [{ urn: 'urn:li:glossaryTerm:t' }] } }, { fieldPath: 'b' }],
  });
});

test('the containment patterns name the urn where the aspect holds it', () => {
  expect(rule('ownership').patterns('urn:li:corpuser:jdoe')).toEqual([{ owners: [{ owner: 'urn:li:corpuser:jdoe' }] }]);
  expect(rule('domains').patterns('urn:li:domain:sales')).toEqual([{ domains: ['urn:li:domain:sales'] }]);
});
