/**
 * `propgraph tokens create|list|revoke` (docs/contract.md §10): access token management: admin scope
 * on the server, or a person signed in with `propgraph login` managing their own
 * personal tokens. The secret of a new token is printed once, on its own line, so
 * scripts can capture it; it cannot be shown again.
 */
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { printLine } from '../terminal.js';

interface TokenMetadata {
  id: string;
  name: string;
  scope: string;
  createdAt: number;
  expiresAt: number | null;
  revoked: boolean;
  lastUsedAt: number | null;
  type: string;
  owner: string | null;
  /** Who it acts as (absent from servers before machine tokens had a namespace of their own). */
  principal?: string;
}

const SCOPES = ['read', 'write', 'admin'];
const TYPES = ['personal', 'machine'];

export async function createToken(ctx: CommandContext, options: { name: string; scope: string; expiresInDays?: string; description?: string; type?: string }): Promise<ExitCode> {
  const scope = options.scope.toLowerCase();
  if (!SCOPES.includes(scope)) throw new CliError(`--scope must be one of ${SCOPES.join(', ')}, got '${options.scope}'`, EXIT.usage);
  const type = options.type?.toLowerCase();
  if (type !== undefined && !TYPES.includes(type)) throw new CliError(`--type must be one of ${TYPES.join(', ')}, got '${options.type}'`, EXIT.usage);
  let expiresAt: number | null = null;
  if (options.expiresInDays !== undefined) {
    const days = Number(options.expiresInDays);
    if (!Number.isFinite(days) || days <= 0) throw new CliError(`--expires-in-days must be a positive number, got '${options.expiresInDays}'`, EXIT.usage);
    expiresAt = Date.now() + days * 24 * 3_600_000;
  }
  const answer = await ctx.api().http.request<{ accessToken: string; metadata: TokenMetadata }>('POST', ctx.api().http.v3('/tokens'), {
    json: { name: options.name, scope, description: options.description ?? null, expiresAt, ...(type ? { type } : {}) },
  });
  const kind = answer.metadata.owner ? `${answer.metadata.type} ` : '';
  const owner = answer.metadata.owner ? ` for ${answer.metadata.owner}` : answer.metadata.principal ? ` acting as ${answer.metadata.principal}` : '';
  printLine(ctx.terminal.stderr, `Created ${scope} ${kind}token '${answer.metadata.name}'${owner} (id ${answer.metadata.id}). Its secret is shown once, below:`);
  printLine(ctx.terminal.stdout, answer.accessToken);
  return EXIT.ok;
}

export async function listTokens(ctx: CommandContext, options: { json?: boolean }): Promise<ExitCode> {
  const answer = await ctx.api().http.request<{ tokens: TokenMetadata[] }>('GET', ctx.api().http.v3('/tokens'));
  if (options.json) {
    printLine(ctx.terminal.stdout, JSON.stringify(answer.tokens, null, 2));
    return EXIT.ok;
  }
  for (const t of answer.tokens) {
    const state = t.revoked ? 'revoked' : t.expiresAt !== null && t.expiresAt <= Date.now() ? 'expired' : 'active';
    const expiry = t.expiresAt === null ? 'never expires' : `expires ${new Date(t.expiresAt).toISOString()}`;
    const owner = t.owner ? `, ${t.type} of ${t.owner}` : t.principal ? `, ${t.type} acting as ${t.principal}` : '';
    printLine(ctx.terminal.stdout, `${t.id}  ${t.scope.padEnd(5)}  ${state.padEnd(7)}  ${t.name}  (${expiry}${owner})`);
  }
  return EXIT.ok;
}

export async function revokeToken(ctx: CommandContext, options: { id: string }): Promise<ExitCode> {
  await ctx.api().http.request('DELETE', ctx.api().http.v3(`/tokens/${encodeURIComponent(options.id)}`));
  printLine(ctx.terminal.stdout, `Revoked token ${options.id}.`);
  return EXIT.ok;
}
