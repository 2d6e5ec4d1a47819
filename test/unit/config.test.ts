/** Configuration (docs/contract.md §11): URN_NAMESPACE picks the namespace of stored and returned type URNs. */
import { ConfigError, loadConfig } from '../../src/config.js';

describe('URN_NAMESPACE', () => {
  test('defaults to svc', () => {
    expect(loadConfig({}).urnNamespace).toBe('svc');
  });

  test('accepts datahub', () => {
    expect(loadConfig({ URN_NAMESPACE: 'datahub' }).urnNamespace).toBe('datahub');
  });

  test('refuses any other namespace, naming the allowed ones', () => {
    expect(() => loadConfig({ URN_NAMESPACE: 'acme' })).toThrow(new ConfigError('URN_NAMESPACE must be one of svc, datahub, got "acme"'));
  });
});
