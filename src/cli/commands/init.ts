/**
 * `propgraph init [--server URL] [--token T]` (seed 4.11, SPEC 9): asks for what is
 * missing when on a terminal, then writes the config file (mode 0600).
 */
import type { CommandContext } from '../context.js';
import { configPath, normaliseServer, readConfigFile, writeConfigFile } from '../configFile.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { ask, printLine } from '../terminal.js';

const DEFAULT_SERVER = 'http://localhost:8080';

export async function init(ctx: CommandContext, options: { server?: string; token?: string }): Promise<ExitCode> {
  const { terminal, environment } = ctx;
  const interactive = Boolean(terminal.stdin.isTTY);
  let previous: { server?: string; token?: string } = {};
  try {
    previous = readConfigFile(environment);
  } catch {
    // A broken file is exactly what init is for: write a new one.
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

  let token = options.token;
  if (token === undefined && interactive) {
    const keep = previous.token ? ' (Enter keeps the current one)' : ' (Enter for none)';
    const answer = await ask(terminal, `Access token${keep}: `, { hidden: true });
    if (answer === undefined) throw new CliError('No answer; nothing was written.', EXIT.usage);
    token = answer.trim() || previous.token;
  }

  const file = writeConfigFile(environment, { server: normalised, ...(token ? { token } : {}) });
  printLine(terminal.stdout, `Wrote ${file} (server ${normalised}, ${token ? 'with an access token' : 'no access token'}).`);
  if (environment.env.PROPGRAPH_SERVER || environment.env.PROPGRAPH_TOKEN) {
    printLine(terminal.stderr, `Note: PROPGRAPH_SERVER / PROPGRAPH_TOKEN are set and override ${configPath(environment)}.`);
  }
  return EXIT.ok;
}
