/** Lifecycle events in words (docs/contract.md §14, "Lifecycle in history"): the CLI's history and the console's timelines say the same. */
import { LIFECYCLE_EVENT_WORDS, lifecycleEventText } from '../../src/domain/lifecycleEvents.js';

describe('a lifecycle event in words', () => {
  test('every event the write path records has its words', () => {
    expect(Object.keys(LIFECYCLE_EVENT_WORDS).sort()).toEqual(['changed', 'created', 'hardDeleted', 'migrationFinished', 'migrationStarted', 'restored', 'softDeleted', 'versionChanged']);
  });

  test.each([
    ['hardDeleted', null, 'deleted permanently'],
    ['versionChanged', { from: null, to: '20250101000000' }, 'new version (from none to 20250101000000)'],
    // Stored as JSONB, the detail's keys come back in any order: the words do not depend on it.
    ['migrationStarted', { rules: 'remap', holders: 258, entities: 258 }, 'migration started (remap: changes the values of 258 entities of the 258 holding any)'],
    ['migrationStarted', { entities: 1, holders: 3 }, 'migration started (changes the values of 1 entity of the 3 holding any)'],
    ['migrationFinished', { entities: 258 }, 'migration finished (258 entities rewritten)'],
    ['somethingNew', { b: 2, a: 1 }, 'somethingNew (a 1, b 2)'],
  ])('%s with %j reads "%s"', (event, detail, words) => {
    expect(lifecycleEventText(event, detail)).toBe(words);
  });
});
