/** The command tree (docs/contract.md §9): each action delegates to one module in commands/. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { upsertDatasets, getDataset, listDatasets } from './commands/dataset.js';
import { deleteEntity } from './commands/delete.js';
import { history } from './commands/history.js';
import { bulkValues, type BulkOperation, type BulkValuesOptions } from './commands/values.js';
import { exportValues } from './commands/valuesCsv.js';
import { importValues, type ImportOptions } from './commands/valuesImport.js';
import { completionScript } from './completion.js';
import { loadDemo } from './commands/demo.js';
import { init } from './commands/init.js';
import { login } from './commands/login.js';
import { getProperty, listProperties, upsertProperties } from './commands/properties.js';
import { migrateProperties, type MigrateOptions } from './commands/propertyMigration.js';
import { backup } from './commands/backup.js';
import { restoreEntity } from './commands/restore.js';
import { search } from './commands/search.js';
import { systemUpdate } from './commands/systemUpdate.js';
import { evaluateTests, getTest, listTests, upsertTests } from './commands/tests.js';
import { reportTests, runTests } from './commands/testCompliance.js';
import { createToken, listTokens, revokeToken } from './commands/tokens.js';
import { applyPolicies, deletePolicy, explainAccess, getPolicy, listPolicies, whoCould } from './commands/policies.js';
import { CliError, EXIT, type ExitCode } from './errors.js';
import { LIMITS } from '../domain/limits.js';

/** The package's version; dist/cli/program.js sits two levels below package.json. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Collects a repeatable option's values in order. */
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function buildProgram(ctx: CommandContext, onResult: (code: ExitCode) => void): Command {
  const run =
    <A extends unknown[]>(action: (...args: A) => Promise<ExitCode>) =>
    async (...args: A) => {
      onResult(await action(...args));
    };
  const program = new Command('propgraph')
    .description('Command-line tool for a propgraph server: structured properties, datasets, search, deletes, tests.')
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.terminal.stdout.write(s),
      writeErr: (s) => ctx.terminal.stderr.write(s),
    })
    .option('--profile <name>', 'use this profile of ~/.propgraph/config.json (default: PROPGRAPH_PROFILE, else the default one)')
    .exitOverride();
  // Before any command runs (and so before its first request): the profile it uses.
  program.hook('preAction', () => ctx.useProfile(program.opts<{ profile?: string }>().profile));

  program
    .command('init')
    .description('write the server address and access token to ~/.propgraph/config.json (asks for what is missing on a terminal)')
    .option('--server <url>', 'server address, e.g. https://host/gms or http://localhost:8080')
    .option('--token <token>', 'access token sent as Authorization: Bearer; - reads it from stdin (a token given here is visible to other users in ps)')
    .option('--token-file <path>', 'read the access token from this file (e.g. data/root-token)')
    .option('--no-check', 'write the configuration without checking that the server answers and accepts the token')
    .option('--force', 'replace the configuration the profile holds without asking')
    .action(run((opts: { server?: string; token?: string; tokenFile?: string; check: boolean; force?: boolean }) => init(ctx, opts)));

  program
    .command('login')
    .description("sign in as yourself through the server's OpenID provider (device code) and store the session in ~/.propgraph/config.json")
    .option('--server <url>', 'server address (default: PROPGRAPH_SERVER or the configured one)')
    .option('--name <name>', 'what to call this session in token lists (default: propgraph login on <host name>)')
    .action(run((opts: { server?: string; name?: string }) => login(ctx, opts)));

  const properties = program.command('properties').description('structured property definitions');
  properties
    .command('upsert')
    .description('create or update structured properties from a YAML definition file (each definition is replaced by the file\'s)')
    .requiredOption('-f, --file <yaml>', 'definition file')
    .option('--dry-run', 'validate the file (and check it against the server) without writing; says how many values a new version would drop')
    .option('--atomic', 'write all entries in one transaction: all or nothing')
    .action(run((opts: { file: string; dryRun?: boolean; atomic?: boolean }) => upsertProperties(ctx, opts)));
  properties
    .command('migrate')
    .description("change definitions whose change would break stored values, keeping the values: remap, convert or drop just the invalid ones (instead of a new version, which drops them all)")
    .requiredOption('-f, --file <yaml>', 'definition file with the new definitions')
    .option('--remap <from=to>', 'a stored value and what it becomes, e.g. --remap 3=2 (repeatable)', collect)
    .option('--convert', 'numbers to strings or strings to numbers, for a value type change')
    .option('--drop-invalid', 'drop only the values the new definition still refuses (needs the right to drop values)')
    .option('--dry-run', 'say what each rule would change, with examples, and write nothing')
    .option('--no-wait', 'write the definition and return while the job rewrites the values')
    .action(run((opts: MigrateOptions) => migrateProperties(ctx, opts)));
  properties
    .command('get')
    .description('print a definition as snake_case JSON')
    .requiredOption('--urn <urn>', 'property urn or qualified name')
    .action(run((opts: { urn: string }) => getProperty(ctx, opts.urn)));
  properties
    .command('list')
    .description('list structured property urns')
    .option('--details', 'print every definition as snake_case JSON')
    .action(run((opts: { details?: boolean }) => listProperties(ctx, opts)));

  const dataset = program.command('dataset').description('datasets and their structured property values');
  dataset
    .command('upsert')
    .description('set dataset and field structured properties from a YAML dataset file (creates missing datasets); merges: properties the file does not name are kept')
    .requiredOption('-f, --file <yaml>', 'dataset file')
    .option('--replace', "replace each named entity's whole structuredProperties with the file's (properties it does not name are removed)")
    .option('--dry-run', 'validate the file and print what would change, value by value, without writing')
    .option('--atomic', 'write all datasets in one transaction (files without field-level properties)')
    .action(run((opts: { file: string; dryRun?: boolean; atomic?: boolean; replace?: boolean }) => upsertDatasets(ctx, opts)));
  dataset
    .command('get')
    .description("print a dataset with its structured properties and its fields' properties")
    .requiredOption('--urn <urn>', 'dataset urn')
    .action(run((opts: { urn: string }) => getDataset(ctx, opts.urn)));
  dataset
    .command('list')
    .description('list dataset urns (soft-deleted ones are left out)')
    .action(run(() => listDatasets(ctx)));

  program
    .command('search')
    .description('search entities by keywords and filters; show facet counts')
    .argument('[query]', 'keywords and/or field:value clauses (docs/search.md); default: everything')
    .option('--type <type>', 'entity type to search, e.g. dataset or schemaField (repeatable)', collect)
    .option('--filter <field=value>', 'only hits whose field has this value, e.g. platform=bigquery or acme.governance.tier=gold (repeatable; values of one field are alternatives)', collect)
    .option('--facet <name>', 'count hits per value of this field or property, e.g. platform or acme.governance.tier (repeatable)', collect)
    .option('--count <n>', 'how many hits to show (default 20; 0 for the total and facets only; more than 1000 are read page by page)')
    .option('--sort <field[:desc]>', 'order the hits: createdTime, lastModified, name or a property (acme.governance.tier), ascending unless :desc follows')
    .option('--json', 'print the result as JSON')
    .action(
      run((query: string | undefined, opts: { type?: string[]; filter?: string[]; facet?: string[]; count?: string; sort?: string; json?: boolean }) => search(ctx, query, opts)),
    );

  program
    .command('delete')
    .description('soft delete an entity (reversible), or hard delete it with --hard')
    .requiredOption('--urn <urn>', 'urn of the entity')
    .option('--hard', 'delete permanently (asks for confirmation)')
    .option('--force', 'do not ask before a hard delete')
    .option('--dry-run', 'with --hard: say how many values the delete would remove, and delete nothing')
    .action(run((opts: { urn: string; hard?: boolean; force?: boolean; dryRun?: boolean }) => deleteEntity(ctx, opts)));

  program
    .command('history')
    .description('who changed which structured property value when: of an entity (--urn), one property on it (--urn --property), or a property everywhere (--property)')
    .option('--urn <urn>', 'the entity')
    .option('--property <name>', 'a structured property (qualified name or urn)')
    .option('--count <n>', 'how many writes to show, newest first (default 20)')
    .option('--all', 'the whole history')
    .option('--json', 'print the entries as JSON')
    .action(run((opts: { urn?: string; property?: string; count?: string; all?: boolean; json?: boolean }) => history(ctx, opts)));

  const values = program.command('values').description('structured property values in bulk: on the entities a search selects, and as CSV');
  const bulk = (operation: BulkOperation, description: string) =>
    values
      .command(operation)
      .description(description)
      .option('--query <query>', "select the entities by a search (docs/search.md), e.g. 'platform:hive AND origin:PROD', or '*' for all")
      .option('--urn <urn>', 'select an entity by urn (repeatable), instead of --query', collect)
      .option('--type <type>', 'entity types to search (repeatable; default: every type the property applies to)', collect)
      .option('--property <name=value>', 'the property and a value, e.g. acme.governance.tier=gold (repeat for several values of one property)', collect)
      .option('--dry-run', 'print what would change, value by value, and write nothing')
      .option('--no-wait', 'start the job and return')
      .option('--if-version <n>', 'with one --urn (set only): write at once, and only if its values are still at this version (dataset get prints it); else refused, saying who changed what')
      .action(run((opts: BulkValuesOptions) => bulkValues(ctx, operation, opts)));
  bulk('set', "set a property's values on every selected entity (its other properties are kept)");
  bulk('add', 'add values of a property (cardinality MULTIPLE) on every selected entity');
  bulk('remove', "remove values of a property (or, given no value, the property) from every selected entity");
  values
    .command('export')
    .description("write the values of properties as CSV (urn, name, platform, environment, description, then a column per property; several values separated by '|')")
    .requiredOption('--property <name>', 'a structured property (repeatable)', collect)
    .option('--query <query>', 'the entities to export (default: those holding any of the properties)')
    .option('--type <type>', 'entity types (repeatable; default: those the properties apply to)', collect)
    .action(run((opts: { property: string[]; query?: string; type?: string[] }) => exportValues(ctx, opts)));
  values
    .command('import')
    .description("set values from a CSV file as values export writes it: each column's property as the cell says (empty: removed), other properties kept; every row checked first, all written in one transaction or none")
    .requiredOption('-f, --file <csv>', 'CSV file')
    .option('--dry-run', 'check every row and print what would change, value by value, without writing')
    .option('--in-parts', `a file larger than one import (${LIMITS.importRows} rows, 1 MB, ${LIMITS.batchEntities} changing): check it all, then write it in parts of ${LIMITS.batchEntities} rows, each in one transaction`)
    .action(run((opts: ImportOptions) => importValues(ctx, opts)));

  program
    .command('completion')
    .description('print a shell completion script: source <(propgraph completion bash)')
    .argument('<shell>', 'bash or zsh')
    .action(
      run(async (shell: string) => {
        ctx.terminal.stdout.write(completionScript(program, shell));
        return 0;
      }),
    );

  const demo = program.command('demo').description('a demo catalogue to try propgraph with');
  demo
    .command('load')
    .description('load a few hundred datasets, a dozen structured properties and two metadata tests (safe to repeat)')
    .action(run(() => loadDemo(ctx)));

  program
    .command('backup')
    .description("save a consistent snapshot of the server's database while it runs (needs an admin token)")
    .requiredOption('--out <file>', 'the backup file to write (gzip; written only once whole and checked)')
    .action(run((opts: { out: string }) => backup(ctx, opts)));

  program
    .command('restore')
    .description('undo a soft delete (--urn), or load a backup into an empty database with no server running on it (--from)')
    .option('--urn <urn>', 'urn of the soft-deleted entity')
    .option('--from <file>', 'a backup file from `propgraph backup`; loads it into DATABASE_URL, or the embedded PostgreSQL in DATA_DIR')
    .option('--force', 'with --from: replace whatever the database holds')
    .action(
      run(async (opts: { urn?: string; from?: string; force?: boolean }) => {
        if (opts.from !== undefined && opts.urn === undefined) {
          // Local: opens the database itself (docs/operations.md), so loaded only for this.
          const { restoreBackup } = await import('./local/restoreBackup.js');
          return restoreBackup(ctx.terminal, { from: opts.from, force: opts.force === true });
        }
        if (opts.urn !== undefined && opts.from === undefined) return restoreEntity(ctx, { urn: opts.urn });
        throw new CliError('restore needs either --urn <urn> (undo a soft delete) or --from <file> (load a backup)', EXIT.usage);
      }),
    );

  // Listed for --help; the package's `propgraph` command (src/bin.ts) runs the server
  // itself before the CLI is loaded, since the CLI does not hold the server's code.
  program
    .command('serve')
    .description('run the server in this process, as `npm start` does (configured by environment variables: README, "Configuration")')
    .action(
      run(async () => {
        throw new CliError('`serve` takes no arguments (environment variables configure the server: README, "Configuration"), and is run by the installed `propgraph` command (dist/bin.js)', EXIT.usage);
      }),
    );

  program
    .command('upgrade-data')
    .description("migrate DATA_DIR's embedded PostgreSQL cluster to this propgraph's PostgreSQL major version (server stopped; the old cluster is kept)")
    .option('--old-bin-dir <dir>', "a directory with the old major's initdb and postgres, when no installed package has them")
    .action(
      run(async (opts: { oldBinDir?: string }) => {
        const { upgradeData } = await import('./local/upgradeData.js');
        return upgradeData(ctx.terminal, opts);
      }),
    );

  program
    .command('system-update')
    .description('rebuild the search indexes from the database and follow the job')
    .option('--no-wait', 'return once the job has started')
    .action(run((opts: { wait: boolean }) => systemUpdate(ctx, opts)));

  const tests = program.command('tests').description('metadata tests');
  tests
    .command('upsert')
    .description("create or update metadata tests from a YAML file (each test is replaced by the file's)")
    .requiredOption('-f, --file <yaml>', 'test file (docs/cli.md)')
    .action(run((opts: { file: string }) => upsertTests(ctx, opts)));
  tests
    .command('get')
    .description('print a test as a file entry (JSON)')
    .requiredOption('--urn <urn>', 'test urn or id')
    .action(run((opts: { urn: string }) => getTest(ctx, opts.urn)));
  tests
    .command('list')
    .description('list metadata tests')
    .option('--json', 'print as JSON')
    .action(run((opts: { json?: boolean }) => listTests(ctx, opts)));
  tests
    .command('evaluate')
    .description('run the metadata tests that apply to an entity')
    .requiredOption('--urn <urn>', 'urn of the entity')
    .option('--push', 'store the results on the entity (testResults aspect)')
    .option('--test <urn...>', 'only these tests')
    .option('--json', 'print the result as JSON')
    .action(run((opts: { urn: string; push?: boolean; test?: string[]; json?: boolean }) => evaluateTests(ctx, opts)));

  tests
    .command('report')
    .description('the compliance report: per test, entities passing, failing and not applicable, with the trend')
    .option('--urn <urn>', 'one test (urn or id): also its trend and its first failing entities')
    .option('--days <n>', 'days of trend (default 30)')
    .option('--json', 'print as JSON')
    .action(run((opts: { urn?: string; days?: string; json?: boolean }) => reportTests(ctx, opts)));
  tests
    .command('run')
    .description('evaluate tests over every entity they select (or a search) now, and follow the job')
    .option('--test <urn...>', 'only these tests (urn or id)')
    .option('--query <query>', 'only the entities this search finds (keywords and query syntax)')
    .option('--type <type...>', 'entity types the query searches')
    .option('--no-wait', 'return once the job has started')
    .action(run((opts: { test?: string[]; query?: string; type?: string[]; wait: boolean }) => runTests(ctx, opts)));

  const tokens = program.command('tokens').description('access tokens (an admin manages all; a signed-in person their own)');
  tokens
    .command('create')
    .description('issue a token; prints its secret once')
    .requiredOption('--name <name>', 'a name saying who or what uses the token')
    .requiredOption('--scope <scope>', 'read, write or admin')
    .option('--expires-in-days <days>', 'lifetime in days (default: no expiry)')
    .option('--description <text>', 'free text')
    .option('--type <type>', 'personal (yours, after propgraph login) or machine (admin); default: personal when signed in, else machine')
    .action(run((opts: { name: string; scope: string; expiresInDays?: string; description?: string; type?: string }) => createToken(ctx, opts)));
  tokens
    .command('list')
    .description('list tokens (never their secrets)')
    .option('--json', 'print as JSON')
    .action(run((opts: { json?: boolean }) => listTokens(ctx, opts)));
  tokens
    .command('revoke')
    .description('revoke a token at once')
    .requiredOption('--id <id>', 'the token id (see tokens list)')
    .action(run((opts: { id: string }) => revokeToken(ctx, opts)));

  const policies = program.command('policies').description('policies: privileges granted to people, groups and tokens on entities and properties');
  policies
    .command('list')
    .description('list the policies in force (the shipped defaults until replaced)')
    .option('--query <words>', 'only policies whose name, description or urn holds these words')
    .option('--json', 'print as JSON')
    .action(run((opts: { query?: string; json?: boolean }) => listPolicies(ctx, opts)));
  policies
    .command('get')
    .description('print one policy as JSON (DataHub\'s dataHubPolicyInfo)')
    .requiredOption('--id <id>', 'the policy id or urn')
    .action(run((opts: { id: string }) => getPolicy(ctx, opts)));
  policies
    .command('apply')
    .description('create and update the policies of a YAML file, all or nothing (policy as code); prints what changes for whom')
    .requiredOption('-f, --file <path>', 'YAML: policies: [{id, displayName, type, state, privileges, actors, resources}]')
    .option('--dry-run', 'print what would change for whom; write nothing')
    .option('--prune', 'also delete stored policies the file leaves out, and turn off shipped defaults it leaves out')
    .option('--json', 'print the changes as JSON')
    .action(run((opts: { file: string; dryRun?: boolean; prune?: boolean; json?: boolean }) => applyPolicies(ctx, opts)));
  policies
    .command('delete')
    .description('delete a stored policy (a shipped default is turned off by applying it with state INACTIVE)')
    .requiredOption('--id <id>', 'the policy id or urn')
    .action(run((opts: { id: string }) => deletePolicy(ctx, opts)));

  const access = program.command('access').description('what the policies allow, and why');
  access
    .command('explain')
    .description('why a principal (you, by default) may or may not use a privilege on an entity; exits 0 when allowed, 1 when not')
    .requiredOption('--privilege <privilege>', 'e.g. EDIT_ENTITY_PROPERTIES, VIEW_ENTITY_PAGE, DELETE_ENTITY')
    .option('--urn <urn>', 'the entity (absent for platform privileges)')
    .option('--property <name>', 'for value and definition privileges: the property (qualified name or urn)')
    .option('--principal <urn>', "someone else's principal urn or person id (needs MANAGE_POLICIES)")
    .option('--group <group...>', 'their groups (default: those of their latest sign-in)')
    .option('--scope <scope>', "their token's scope (default: their largest live token's)")
    .option('--json', 'print as JSON')
    .action(run((opts: { privilege: string; urn?: string; property?: string; principal?: string; group?: string[]; scope?: string; json?: boolean }) => explainAccess(ctx, opts)));
  access
    .command('who')
    .description('who could use a privilege on an entity (and property): the policies that grant it there, and their actors')
    .requiredOption('--privilege <privilege>', 'e.g. EDIT_ENTITY_PROPERTIES')
    .option('--urn <urn>', 'the entity')
    .option('--property <name>', 'for value and definition privileges: the property')
    .option('--json', 'print as JSON')
    .action(run((opts: { privilege: string; urn?: string; property?: string; json?: boolean }) => whoCould(ctx, opts)));

  return program;
}
