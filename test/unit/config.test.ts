/** Configuration (docs/contract.md §11): URN_NAMESPACE picks the namespace of stored and returned type URNs. */
import { ConfigError, loadConfig } from '../../src/platform/config.js';

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

describe('operations settings', () => {
  test('METRICS_PORT is unset by default and an integer when given', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(ConfigError);
  });

  test('LEASE_SECONDS is 15 by default, at least 3 when given', () => {
    expect(loadConfig({}).leaseSeconds).toBe(15);
    expect(loadConfig({ LEASE_SECONDS: '5' }).leaseSeconds).toBe(5);
    expect(() => loadConfig({ LEASE_SECONDS: '1' })).toThrow(new ConfigError('LEASE_SECONDS must be an integer >= 3, got "1"'));
  });

  test('tracing is off unless an OTLP endpoint is set', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: traces go to its /v1/traces', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({ tracesUrl: 'http://collector:4318/v1/traces', headers: {}, serviceName: 'propgraph' });
  });

  test('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the whole URL; headers and the service name as every SDK reads them', () => {
    const tracing = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/otlp/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%20b, x-team = ops',
      OTEL_SERVICE_NAME: 'catalog',
    }).tracing;
    expect(tracing).toEqual({ tracesUrl: 'https://collector.example/otlp/traces', headers: { 'api-key': 'a b', 'x-team': 'ops' }, serviceName: 'catalog' });
  });

  test('a malformed endpoint or header pair is refused at start-up, naming the variable', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs/);
  });
});
