/**
 * `propgraph policies list|get|apply|delete` and `propgraph access explain|who`
 * (docs/cli.md, "Policies"): policies as code, over REST v3. `apply -f policies.yaml`
 * sends the file whole; the server decides every change in the write path and answers
 * what changes for whom, which `--dry-run` prints without writing anything.
 */
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { loadYamlFile } from '../files/yamlFile.js';
import { printLine } from '../terminal.js';

interface PolicyAnswer {
  urn: string;
  origin: string;
  lastModified: { time: number; actor: string } | null;
  dataHubPolicyInfo: { displayName: string; type: string; state: string; privileges: string[] } & Record<string, unknown>;
}

interface PolicyChange {
  urn: string;
  name: string;
  change: string;
  forWhom: Array<{ actor: string; gains: string[]; loses: string[] }>;
  resources?: { before: string; after: string };
}

export async function listPolicies(ctx: CommandContext, options: { query?: string; json?: boolean }): Promise<ExitCode> {
  const http = ctx.api().http;
  const answer = await http.request<{ policies: PolicyAnswer[]; total: number }>('GET', http.v3('/policies'), { query: { count: '1000', ...(options.query ? { query: options.query } : {}) } });
  if (options.json) {
    printLine(ctx.terminal.stdout, JSON.stringify(answer.policies, null, 2));
    return EXIT.ok;
  }
  for (const p of answer.policies) {
    const info = p.dataHubPolicyInfo;
    printLine(ctx.terminal.stdout, `${p.urn}  ${info.state.padEnd(8)}  ${info.type.padEnd(8)}  ${info.displayName}  [${info.privileges.join(', ')}]${p.origin === 'default' ? '  (shipped default)' : ''}`);
  }
  return EXIT.ok;
}

export async function getPolicy(ctx: CommandContext, options: { id: string }): Promise<ExitCode> {
  const http = ctx.api().http;
  printLine(ctx.terminal.stdout, JSON.stringify(await http.request<PolicyAnswer>('GET', http.v3(`/policies/${encodeURIComponent(options.id)}`)), null, 2));
  return EXIT.ok;
}

export async function deletePolicy(ctx: CommandContext, options: { id: string }): Promise<ExitCode> {
  const http = ctx.api().http;
  const answer = await http.request<{ urn: string; defaultRestored: boolean }>('DELETE', http.v3(`/policies/${encodeURIComponent(options.id)}`));
  printLine(ctx.terminal.stdout, `Deleted ${answer.urn}${answer.defaultRestored ? '; the shipped default of that urn is in force again' : ''}.`);
  return EXIT.ok;
}

/** A change as people read it: what happens to the policy, then who gains or loses what. */
function describeChange(c: PolicyChange): string[] {
  const lines = [`${c.change.padEnd(10)} ${c.urn}  ${c.name}`];
  for (const a of c.forWhom) {
    if (a.gains.length > 0) lines.push(`             ${a.actor} gains ${a.gains.join(', ')}`);
    if (a.loses.length > 0) lines.push(`             ${a.actor} loses ${a.loses.join(', ')}`);
  }
  if (c.resources) lines.push(`             resources: ${c.resources.before} -> ${c.resources.after}`);
  return lines;
}

export async function applyPolicies(ctx: CommandContext, options: { file: string; dryRun?: boolean; prune?: boolean; json?: boolean }): Promise<ExitCode> {
  const file = loadYamlFile(options.file);
  // Policies are data the server reads strictly: YAML's own types (true, numbers) as written.
  const doc = file.typedAt([]);
  const policies = Array.isArray(doc) ? doc : (doc as { policies?: unknown } | null | undefined)?.policies;
  if (!Array.isArray(policies)) throw new CliError(`${file.name}: expected a list of policies, or a mapping with policies: [...]`, EXIT.usage);
  const http = ctx.api().http;
  const answer = await http.request<{ dryRun: boolean; changes: PolicyChange[] }>('POST', http.v3('/policies/apply'), {
    query: { dryRun: String(options.dryRun === true), prune: String(options.prune === true) },
    json: { policies },
  });
  if (options.json) {
    printLine(ctx.terminal.stdout, JSON.stringify(answer, null, 2));
    return EXIT.ok;
  }
  const changed = answer.changes.filter((c) => c.change !== 'unchanged');
  for (const c of answer.changes) for (const line of describeChange(c)) printLine(ctx.terminal.stdout, line);
  const verb = answer.dryRun ? 'would change' : 'changed';
  printLine(ctx.terminal.stderr, `${changed.length} of ${answer.changes.length} polic${answer.changes.length === 1 ? 'y' : 'ies'} ${verb}${answer.dryRun ? '; nothing was written (--dry-run)' : ''}.`);
  return EXIT.ok;
}

export async function explainAccess(ctx: CommandContext, options: { privilege: string; urn?: string; property?: string; principal?: string; group?: string[]; scope?: string; json?: boolean }): Promise<ExitCode> {
  const http = ctx.api().http;
  const answer = await http.request<{ allowed: boolean; summary: string; withinScope: boolean; grantedBy: Array<{ urn: string; name: string }>; notGranting: Array<{ urn: string; name: string; refusal: string }> }>('GET', http.v3('/access/explain'), {
    query: {
      privilege: options.privilege,
      ...(options.urn ? { urn: options.urn } : {}),
      ...(options.property ? { property: options.property } : {}),
      ...(options.principal ? { principal: options.principal } : {}),
      ...(options.group?.length ? { groups: options.group.join(',') } : {}),
      ...(options.scope ? { scope: options.scope } : {}),
    },
  });
  if (options.json) {
    printLine(ctx.terminal.stdout, JSON.stringify(answer, null, 2));
  } else {
    printLine(ctx.terminal.stdout, answer.summary);
    for (const g of answer.grantedBy) printLine(ctx.terminal.stdout, `  granted by ${g.urn} (${g.name})`);
    for (const r of answer.notGranting) printLine(ctx.terminal.stdout, `  not by ${r.urn} (${r.name}): ${r.refusal}`);
  }
  // Scripts branch on the answer: 0 allowed, 1 not.
  return answer.allowed ? EXIT.ok : EXIT.failed;
}

export async function whoCould(ctx: CommandContext, options: { privilege: string; urn?: string; property?: string; json?: boolean }): Promise<ExitCode> {
  const http = ctx.api().http;
  const answer = await http.request<{ scopeNeeded: string; grantees: Array<{ policy: { urn: string; name: string }; actors: string[] }>; owners: string[] }>('GET', http.v3('/access/who'), {
    query: { privilege: options.privilege, ...(options.urn ? { urn: options.urn } : {}), ...(options.property ? { property: options.property } : {}) },
  });
  if (options.json) {
    printLine(ctx.terminal.stdout, JSON.stringify(answer, null, 2));
    return EXIT.ok;
  }
  if (answer.grantees.length === 0) printLine(ctx.terminal.stdout, 'Nobody: no active policy grants it here.');
  for (const g of answer.grantees) printLine(ctx.terminal.stdout, `${g.actors.join(', ')}  (by ${g.policy.urn}, ${g.policy.name})`);
  if (answer.owners.length > 0) printLine(ctx.terminal.stdout, `Owners: ${answer.owners.join(', ')}`);
  printLine(ctx.terminal.stderr, `A token needs ${answer.scopeNeeded} scope besides.`);
  return EXIT.ok;
}
