/**
 * `propgraph login [--server URL] [--name NAME]` (issue #30): signs a person in through
 * the server's OpenID provider with the device authorization grant. It prints where to
 * go and the code to enter, polls until the person approved it (in any browser, on any
 * device), and stores the session token it is given in the config file, mode 0600,
 * exactly where `propgraph init` stores a token. The server runs the grant with its own
 * client credentials; the CLI holds no secret but the session token.
 */
import { hostname } from 'node:os';
import type { CommandContext } from '../context.js';
import { configPath, normaliseServer, readConfigFile, writeConfigFile } from '../configFile.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { HttpClient } from '../httpClient.js';
import { printLine } from '../terminal.js';

interface DeviceStart {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  interval: number;
  expiresIn: number;
}

interface SignedIn {
  accessToken: string;
  metadata: { expiresAt: number | null };
  person: { urn: string; scope: string };
}

/** RFC 8628: a client told to slow down adds 5 seconds to its interval. */
const SLOW_DOWN_S = 5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function serverOf(ctx: CommandContext, option: string | undefined): string {
  const stored = (() => {
    try {
      return readConfigFile(ctx.environment).server;
    } catch {
      return undefined;
    }
  })();
  const server = option ?? ctx.environment.env.PROPGRAPH_SERVER ?? stored;
  if (!server) throw new CliError('No propgraph server configured: run `propgraph login --server <url>`.', EXIT.usage);
  return normaliseServer(server);
}

export async function login(ctx: CommandContext, options: { server?: string; name?: string }): Promise<ExitCode> {
  const { terminal, environment } = ctx;
  const server = serverOf(ctx, options.server);
  const http = new HttpClient({ server });
  let started: DeviceStart;
  try {
    started = await http.request<DeviceStart>('POST', '/auth/device', { json: {} });
  } catch (err) {
    // A server without OIDC settings has no such route: unknown paths need a token there.
    if (err instanceof CliError && (err.exitCode === EXIT.auth || (err instanceof ApiError && err.status === 404))) {
      throw new CliError(`The server at ${server} does not offer sign-in (it has no OIDC_ISSUER configured); use an access token: \`propgraph init --token <token>\`.`, EXIT.usage);
    }
    throw err;
  }
  printLine(terminal.stdout, `To sign in, open ${started.verificationUri} and enter the code ${started.userCode}`);
  if (started.verificationUriComplete) printLine(terminal.stdout, `(or open ${started.verificationUriComplete})`);
  printLine(terminal.stdout, 'Waiting for the sign-in to be approved…');

  const name = options.name ?? `propgraph login on ${hostname()}`;
  const deadline = Date.now() + started.expiresIn * 1000;
  let intervalS = Math.max(1, started.interval);
  for (;;) {
    await sleep(intervalS * 1000);
    try {
      const signedIn = await http.request<SignedIn>('POST', '/auth/device/token', { json: { deviceCode: started.deviceCode, name } });
      const file = writeConfigFile(environment, { server, token: signedIn.accessToken });
      const until = signedIn.metadata.expiresAt === null ? '' : `, until ${new Date(signedIn.metadata.expiresAt).toISOString()}`;
      printLine(terminal.stdout, `Signed in as ${signedIn.person.urn} (${signedIn.person.scope} scope${until}). Wrote ${file}.`);
      if (environment.env.PROPGRAPH_TOKEN) printLine(terminal.stderr, `Note: PROPGRAPH_TOKEN is set and overrides the token in ${configPath(environment)}.`);
      return EXIT.ok;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
      if (err.kind === 'slow_down') intervalS += SLOW_DOWN_S;
      else if (err.kind === 'expired_token' || err.kind === 'access_denied') throw new CliError(`Not signed in: ${err.detail ?? err.kind}`, EXIT.auth);
      else if (err.kind !== 'authorization_pending') throw err;
      if (Date.now() > deadline) throw new CliError('Not signed in: the code expired before it was approved. Run `propgraph login` again.', EXIT.auth);
    }
  }
}
