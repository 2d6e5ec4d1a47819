/** Status (docs/contract.md §5 soft delete), key aspects, testInfo/testResults and other aspects stored as given (docs/contract.md §4, §7). */
import { NotFoundError, ValidationError } from '../../../src/domain/errors.js';
import { parseUrn } from '../../../src/domain/urn.js';
import { keyAspectRules, objectAspectRules, testResultsRules } from '../../../src/domain/writes/plainAspectRules.js';
import { propertyStatusRules, statusRules } from '../../../src/domain/writes/statusRules.js';
import { aspect, aspectState, DATASET, definitionOf } from '../../support/writeStates.js';
import { thrown } from '../thrown.js';

const PROPERTY = parseUrn('urn:li:structuredProperty:io.acryl.tier');

describe('status', () => {
  test('status is {removed: boolean} and nothing else', () => {
    expect(statusRules.decide({ removed: true }, aspectState()).stored).toEqual({ removed: true });
    expect(thrown(() => statusRules.decide({ removed: 'yes' }, aspectState())).message).toBe('removed must be true or false, not "yes"');
    expect(thrown(() => statusRules.decide({ removed: true, why: 1 }, aspectState())).message).toBe('why is not a known field; expected one of removed');
  });

  test('a status on another entity changes no registry row', () => {
    expect(statusRules.decide({ removed: true }, aspectState()).registry).toBeNull();
  });

  test('soft delete of a property sets its registry flag in the same write', () => {
    const state = aspectState({ urn: PROPERTY, aspects: { propertyDefinition: aspect(definitionOf('io.acryl.tier')) } });
    expect(propertyStatusRules.decide({ removed: true }, state).registry).toEqual({ urn: PROPERTY.value, define: null, removed: true });
    expect(propertyStatusRules.decide({ removed: false }, state).registry).toEqual({ urn: PROPERTY.value, define: null, removed: false });
  });

  test('the status of a property without a definition is 404: a status alone makes no property', () => {
    const err = thrown(() => propertyStatusRules.decide({ removed: true }, aspectState({ urn: PROPERTY })));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe(`Structured property ${PROPERTY.value} does not exist`);
    expect(propertyStatusRules.createsEntity).toBe(false);
    expect(propertyStatusRules.needs(PROPERTY, undefined).aspects).toEqual(['propertyDefinition']);
  });
});

describe('key aspects', () => {
  const rules = keyAspectRules('datasetKey');

  test('a key aspect that agrees with the urn creates the entity and stores nothing', () => {
    const d = rules.decide({ name: 'db.orders', platform: 'urn:li:dataPlatform:hive' }, aspectState());
    expect(d.store).toBe('never');
    expect(d.visible).toEqual({ platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' });
    expect(rules.createsEntity).toBe(true);
  });

  test('a key aspect that contradicts the urn is refused', () => {
    expect(thrown(() => rules.decide({ origin: 'DEV' }, aspectState())).message).toBe(`datasetKey.origin does not match the urn ${DATASET.value}`);
  });

  test('readers see the key derived from the urn', () => {
    expect(rules.view(undefined, { urn: DATASET, values: [], urnNamespace: 'svc' })).toEqual({ platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' });
  });
});

describe('aspects stored as given', () => {
  test('an aspect without rules of its own must be a JSON object', () => {
    const rules = objectAspectRules('datasetProperties');
    expect(rules.decide({ description: 'd' }, aspectState()).stored).toEqual({ description: 'd' });
    const err = thrown(() => rules.decide([1], aspectState()));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe('datasetProperties must be a JSON object');
  });

  test('test results describe an entity, so they never create one', () => {
    expect(testResultsRules.createsEntity).toBe(false);
    expect(testResultsRules.decide({ passing: [], failing: [] }, aspectState()).stored).toEqual({ passing: [], failing: [] });
  });
});
