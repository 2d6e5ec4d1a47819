/**
 * Where the CLI finds its server and token (docs/contract.md §9): a JSON file in the home
 * directory written by `propgraph init` (mode 0600, it holds a secret), overridden
 * by PROPGRAPH_SERVER and PROPGRAPH_TOKEN. The file holds a default server and token
 * and, under `profiles`, named others (`--profile staging` or PROPGRAPH_PROFILE picks one).
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
  /** `--profile`, when given (else PROPGRAPH_PROFILE, else the file's default). */
  readonly profile?: string;
}

const PROFILE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** The profile a command uses: `--profile`, else PROPGRAPH_PROFILE; undefined for the default one. */
export function profileOf(environment: CliEnvironment): string | undefined {
  const name = environment.profile ?? (environment.env.PROPGRAPH_PROFILE || undefined);
  if (name !== undefined && !PROFILE_NAME.test(name)) {
    throw new CliError(`Invalid profile name ${JSON.stringify(name)}: use letters, digits, '.', '_' and '-' (at most 64)`, EXIT.usage);
  }
  return name;
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

interface StoredProfile {
  server?: string;
  token?: string;
}

interface StoredConfig extends StoredProfile {
  profiles?: Record<string, StoredProfile>;
}

function profileIn(obj: Record<string, unknown>): StoredProfile {
  return {
    ...(typeof obj.server === 'string' ? { server: obj.server } : {}),
    ...(typeof obj.token === 'string' && obj.token !== '' ? { token: obj.token } : {}),
  };
}

/** The settings of the profile the command uses (empty when the file or the profile does not exist). */
export function readConfigFile(environment: CliEnvironment): StoredProfile {
  const whole = readWholeFile(environment);
  const name = profileOf(environment);
  return name === undefined ? { ...(whole.server ? { server: whole.server } : {}), ...(whole.token ? { token: whole.token } : {}) } : (whole.profiles?.[name] ?? {});
}

/** The names of the profiles the file holds besides the default. */
export function profileNames(environment: CliEnvironment): string[] {
  return Object.keys(readWholeFile(environment).profiles ?? {}).sort();
}

function readWholeFile(environment: CliEnvironment): StoredConfig {
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
  const profiles: Record<string, StoredProfile> = {};
  if (obj.profiles && typeof obj.profiles === 'object' && !Array.isArray(obj.profiles)) {
    for (const [name, value] of Object.entries(obj.profiles as Record<string, unknown>)) {
      if (value && typeof value === 'object' && !Array.isArray(value)) profiles[name] = profileIn(value as Record<string, unknown>);
    }
  }
  return { ...profileIn(obj), ...(Object.keys(profiles).length > 0 ? { profiles } : {}) };
}

/** Writes the settings as the profile the command uses, keeping the file's other profiles. */
export function writeConfigFile(environment: CliEnvironment, settings: CliSettings): string {
  const file = configPath(environment);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const name = profileOf(environment);
  let kept: StoredConfig = {};
  try {
    kept = readWholeFile(environment);
  } catch {
    // A broken file is replaced, as init always did.
  }
  const written: StoredProfile = { server: settings.server, ...(settings.token ? { token: settings.token } : {}) };
  const body: StoredConfig =
    name === undefined
      ? { ...written, ...(kept.profiles ? { profiles: kept.profiles } : {}) }
      : { ...(kept.server ? { server: kept.server } : {}), ...(kept.token ? { token: kept.token } : {}), profiles: { ...kept.profiles, [name]: written } };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync's mode only applies when it creates the file; an older file may be wider.
  chmodSync(file, 0o600);
  return file;
}

/** The settings a command runs with: the environment wins over the file. */
export function resolveSettings(environment: CliEnvironment): CliSettings {
  const stored = readConfigFile(environment);
  const server = environment.env.PROPGRAPH_SERVER || stored.server;
  const name = profileOf(environment);
  if (!server && name !== undefined) {
    const known = profileNames(environment);
    throw new CliError(
      `No profile ${JSON.stringify(name)} in ${configPath(environment)}${known.length ? ` (it has: ${known.join(', ')})` : ''}: create it with \`propgraph --profile ${name} init --server <url>\`.`,
      EXIT.unreachable,
    );
  }
  if (!server) {
    throw new CliError('No propgraph server configured: run `propgraph init --server <url>` or set PROPGRAPH_SERVER.', EXIT.unreachable);
  }
  const token = environment.env.PROPGRAPH_TOKEN || stored.token;
  return { server: normaliseServer(server), ...(token ? { token } : {}) };
}
