/**
 * `propgraph init [--server URL] [--token T | --token - | --token-file F] [--no-check]`
 * (docs/contract.md §9): asks for what is missing when on a terminal, checks that the
 * server answers and accepts the token, then writes the config file (mode 0600). A
 * configuration that cannot work is refused at once rather than at the first command.
 * The token can come from a file or from stdin, so that it never sits in the command
 * line, where every user of the machine can read it (`ps`). A configuration the profile
 * already holds is replaced only when the person says yes, or with `--force` (issue #41:
 * init overwrote one without a word).
 */
import { readFile } from 'node:fs/promises';
import type { CommandContext } from '../context.js';
import { configPath, normaliseServer, profileOf, readConfigFile, writeConfigFile, type CliSettings } from '../configFile.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { CliWhoAmIDocument } from '../generated/graphql.js';
import { GraphqlApi } from '../graphqlApi.js';
import { HttpClient } from '../httpClient.js';
import { ask, confirm, printLine, type Terminal } from '../terminal.js';

const SKIP_HINT = 'Nothing was written; pass --no-check to write the configuration anyway.';

/** Asks the server who the token belongs to: proves it answers, speaks GraphQL and accepts the token. Returns the token's scope. */
async function checkServer(settings: CliSettings): Promise<string> {
  try {
    const { me } = await new GraphqlApi(new HttpClient(settings)).run(CliWhoAmIDocument, {});
    return me.scope.toLowerCase();
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    if (err.exitCode === EXIT.auth) {
      const what = settings.token ? 'refused the access token' : 'needs an access token (--token; the server writes an admin token to data/root-token on its first start)';
      throw new CliError(`The server at ${settings.server} ${what}: ${err.message} ${SKIP_HINT}`, EXIT.auth);
    }
    if (err.exitCode === EXIT.unreachable) throw new CliError(`${err.message} ${SKIP_HINT}`, EXIT.unreachable);
    throw new CliError(`The server at ${settings.server} did not answer as a propgraph server: ${err.message} ${SKIP_HINT}`, EXIT.unreachable);
  }
}

const DEFAULT_SERVER = 'http://localhost:8080';

async function readStdin(terminal: Terminal): Promise<string> {
  if (terminal.stdin.isTTY) return (await ask(terminal, 'Access token: ', { hidden: true })) ?? '';
  let text = '';
  for await (const chunk of terminal.stdin) text += String(chunk);
  return text;
}

/** The token given by --token-file or --token - (trimmed, as files end in a newline); --token's own value otherwise. */
async function givenToken(terminal: Terminal, options: { token?: string; tokenFile?: string }): Promise<string | undefined> {
  if (options.tokenFile !== undefined && options.token !== undefined) throw new CliError('Give the token once: --token or --token-file, not both', EXIT.usage);
  if (options.tokenFile === undefined && options.token !== '-') return options.token;
  const from = options.tokenFile === undefined ? 'stdin (--token -)' : options.tokenFile;
  let text: string;
  try {
    text = options.tokenFile === undefined ? await readStdin(terminal) : await readFile(options.tokenFile, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read the token from ${from}: ${(err as Error).message}`, EXIT.usage);
  }
  const token = text.trim();
  if (token === '' || /\s/.test(token)) throw new CliError(`${from} does not hold a token: expected one line with the token and nothing else`, EXIT.usage);
  return token;
}

/** What the profile holds now, as a person would recognise it; undefined when it holds nothing. */
function describeCurrent(previous: { server?: string; token?: string }, broken: boolean, environment: CommandContext['environment']): string | undefined {
  const profile = profileOf(environment);
  const where = `${configPath(environment)}${profile ? ` (profile ${profile})` : ''}`;
  if (broken) return `${where} exists but cannot be read`;
  if (!previous.server && !previous.token) return undefined;
  return `${where} already holds ${previous.server ? `server ${previous.server}` : 'no server'}, ${previous.token ? 'with an access token' : 'no access token'}`;
}

export async function init(ctx: CommandContext, options: { server?: string; token?: string; tokenFile?: string; check?: boolean; force?: boolean }): Promise<ExitCode> {
  const { terminal, environment } = ctx;
  const interactive = Boolean(terminal.stdin.isTTY);
  let previous: { server?: string; token?: string } = {};
  let broken = false;
  try {
    previous = readConfigFile(environment);
  } catch {
    // A broken file is what init is for; it is still replaced only when the person says so.
    broken = true;
  }
  // Asked first on a terminal, before the questions about the new one; a script says --force.
  const current = options.force ? undefined : describeCurrent(previous, broken, environment);
  if (current && interactive && !(await confirm(terminal, `${current}. Replace it?`))) {
    throw new CliError('Nothing was written; the configuration is unchanged.', EXIT.failed);
  }

  let server = options.server;
  if (server === undefined) {
    if (!interactive) throw new CliError('--server is required when not on a terminal (e.g. propgraph init --server https://host/gms)', EXIT.usage);
    const fallback = previous.server ?? DEFAULT_SERVER;
    const answer = await ask(terminal, `propgraph server address [${fallback}]: `);
    if (answer === undefined) throw new CliError('No answer; nothing was written.', EXIT.usage);
    server = answer.trim() || fallback;
  }
  const normalised = normaliseServer(server);

  let token = await givenToken(terminal, options);
  if (token === undefined && interactive) {
    const keep = previous.token ? ' (Enter keeps the current one)' : ' (Enter for none)';
    const answer = await ask(terminal, `Access token${keep}: `, { hidden: true });
    if (answer === undefined) throw new CliError('No answer; nothing was written.', EXIT.usage);
    token = answer.trim() || previous.token;
  }

  const settings: CliSettings = { server: normalised, ...(token ? { token } : {}) };
  const same = !broken && previous.server === settings.server && previous.token === settings.token;
  if (current && !interactive && !same) {
    throw new CliError(`${current}; pass --force to replace it. Nothing was written.`, EXIT.usage);
  }
  const scope = options.check === false ? undefined : await checkServer(settings);
  const file = writeConfigFile(environment, settings);
  const tokenNote = token ? `with an access token${scope ? ` of ${scope} scope` : ''}` : 'no access token';
  const profile = profileOf(environment);
  printLine(terminal.stdout, `Wrote ${file} (${profile ? `profile ${profile}, ` : ''}server ${normalised}, ${tokenNote}, ${scope ? 'checked' : 'not checked'}).`);
  if (environment.env.PROPGRAPH_SERVER || environment.env.PROPGRAPH_TOKEN) {
    printLine(terminal.stderr, `Note: PROPGRAPH_SERVER / PROPGRAPH_TOKEN are set and override ${configPath(environment)}.`);
  }
  return EXIT.ok;
}
