/**
 * Where the CLI finds its server and token (docs/contract.md §9): a JSON file in the home
 * directory written by `propgraph init` (mode 0600, it holds a secret), overridden
 * by PROPGRAPH_SERVER and PROPGRAPH_TOKEN.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from './errors.js';

export interface CliSettings {
  readonly server: string;
  readonly token?: string;
}

/** What the process gives the CLI: the environment and the home directory. */
export interface CliEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
}

export function configPath(environment: CliEnvironment): string {
  return path.join(environment.home, '.propgraph', 'config.json');
}

/** Checks and normalises a server address: http(s), no trailing slash, no query. */
export function normaliseServer(raw: string): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`Invalid server address ${JSON.stringify(raw)}: expected a URL such as http://localhost:8080 or https://host/gms`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`Invalid server address ${JSON.stringify(raw)}: only http and https are supported`, EXIT.usage);
  }
  if (url.search || url.hash) throw new CliError(`Invalid server address ${JSON.stringify(raw)}: it must not carry a query or fragment`, EXIT.usage);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

interface StoredConfig {
  server?: string;
  token?: string;
}

export function readConfigFile(environment: CliEnvironment): StoredConfig {
  const file = configPath(environment);
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}. Run \`propgraph init\` to write it again.`, EXIT.usage);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new CliError(`Cannot read ${file}: expected a JSON object. Run \`propgraph init\` to write it again.`, EXIT.usage);
  }
  const obj = parsed as Record<string, unknown>;
  return {
    ...(typeof obj.server === 'string' ? { server: obj.server } : {}),
    ...(typeof obj.token === 'string' && obj.token !== '' ? { token: obj.token } : {}),
  };
}

export function writeConfigFile(environment: CliEnvironment, settings: CliSettings): string {
  const file = configPath(environment);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const body: StoredConfig = { server: settings.server, ...(settings.token ? { token: settings.token } : {}) };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync's mode only applies when it creates the file; an older file may be wider.
  chmodSync(file, 0o600);
  return file;
}

/** The settings a command runs with: the environment wins over the file. */
export function resolveSettings(environment: CliEnvironment): CliSettings {
  const stored = readConfigFile(environment);
  const server = environment.env.PROPGRAPH_SERVER || stored.server;
  if (!server) {
    throw new CliError('No propgraph server configured: run `propgraph init --server <url>` or set PROPGRAPH_SERVER.', EXIT.unreachable);
  }
  const token = environment.env.PROPGRAPH_TOKEN || stored.token;
  return { server: normaliseServer(server), ...(token ? { token } : {}) };
}
