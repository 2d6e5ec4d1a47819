/**
 * `propgraph demo load`: writes the demo catalogue (src/cli/demo/catalogue.ts) so a new
 * user can search, facet and evaluate tests within a minute of starting the server.
 * Every write replaces what the catalogue names with the same content, so loading twice
 * changes nothing. On datasets and fields, only the demo's own properties are set (a
 * patch per property): values of any other property, set by people since, are kept.
 * Progress is a bar on a terminal and plain lines otherwise.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import type { CommandContext } from '../context.js';
import { demoCatalogue, type DemoEntity } from '../demo/catalogue.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { RunProgress } from '../progress.js';
import type { RestApi } from '../restApi.js';
import { printLine } from '../terminal.js';
import { sleep } from '../../platform/time.js';
import type { PatchOperation } from '../../domain/jsonPatch.js';
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';

const BATCH = 50;
const INDEX_WAIT_MS = 120_000;
const INDEX_POLL_MS = 250;

interface Health {
  search?: { ok?: boolean; enabled?: boolean };
  changeLog?: { pending?: number };
}

/**
 * Waits until the search index holds what was written (GET /health: nothing pending in
 * the change log), so the searches suggested next find the data. Skipped when the server
 * has no search or does not report it.
 */
async function waitForIndex(ctx: CommandContext, say: (line: string) => void): Promise<void> {
  const http = ctx.api().http;
  const deadline = Date.now() + INDEX_WAIT_MS;
  let said = false;
  for (;;) {
    let health: Health;
    try {
      health = await http.request<Health>('GET', '/health');
    } catch (err) {
      // 503 is how /health reports a failing component (e.g. search unreachable): nothing to wait for.
      if (err instanceof ApiError) return;
      throw err;
    }
    const pending = health.changeLog?.pending ?? 0;
    if (health.search?.enabled === false || health.search?.ok === false || pending === 0) return;
    if (Date.now() > deadline) {
      say(`The search index is still catching up (${pending} changes pending); searches will find everything shortly.`);
      return;
    }
    if (!said) say(`Waiting for the search index (${pending} changes pending)...`);
    said = true;
    await sleep(INDEX_POLL_MS);
  }
}

export async function loadDemo(ctx: CommandContext): Promise<ExitCode> {
  const catalogue = demoCatalogue();
  const api = ctx.api();
  const out = ctx.terminal.stdout;
  const stages: ReadonlyArray<{ entityType: string; label: string; entities: DemoEntity[] }> = [
    { entityType: ENTITY.structuredProperty.name, label: 'structured properties', entities: catalogue.properties },
    { entityType: ENTITY.dataset.name, label: 'datasets', entities: catalogue.datasets },
    { entityType: ENTITY.schemaField.name, label: 'schema fields with values', entities: catalogue.fields },
    { entityType: 'test', label: 'metadata tests', entities: catalogue.tests },
  ];
  const total = stages.reduce((n, s) => n + s.entities.length, 0);
  const progress = new RunProgress(ctx.terminal, total, 'loaded');
  // On a terminal the bar shows progress; elsewhere (pipes, logs, CI) one line per batch.
  const say = (line: string) => {
    progress.clear();
    printLine(out, line);
  };
  let done = 0;
  for (const stage of stages) {
    for (let i = 0; i < stage.entities.length; i += BATCH) {
      const batch = stage.entities.slice(i, i + BATCH);
      await writeBatch(api, stage.entityType, batch);
      done += batch.length;
      progress.step(done, stage.label);
      if (!progress.showsBar) printLine(out, `Loaded ${Math.min(i + BATCH, stage.entities.length)}/${stage.entities.length} ${stage.label}`);
    }
  }
  progress.clear();
  await waitForIndex(ctx, say);
  const dataset = catalogue.datasets.find((d) => d.urn.includes(',marketing.invoices,'))!.urn;
  printLine(
    out,
    `Demo catalogue loaded: ${catalogue.properties.length} structured properties, ${catalogue.datasets.length} datasets ` +
      `(${catalogue.schemaFieldCount} schema fields), ${catalogue.tests.length} metadata tests. Try:`,
  );
  printLine(out, '  propgraph search invoices');
  printLine(out, '  propgraph search --type dataset --filter platform=bigquery --facet acme.governance.tier');
  printLine(out, `  propgraph tests evaluate --urn '${dataset}'`);
  return EXIT.ok;
}

/** The entity as patches: each aspect replaced, except structuredProperties, whose demo properties alone are set. */
function demoPatch(entity: DemoEntity): { urn: string; patches: Record<string, PatchOperation[]> } {
  const patches: Record<string, PatchOperation[]> = {};
  for (const [aspect, value] of Object.entries(entity.aspects)) {
    patches[aspect] =
      aspect === 'structuredProperties'
        ? (value as StructuredPropertiesAspect).properties.map((p) => ({ op: 'add', path: `/properties/${p.propertyUrn}`, value: p }))
        : [{ op: 'add', path: '', value }];
  }
  return { urn: entity.urn, patches };
}

async function writeBatch(api: RestApi, entityType: string, batch: DemoEntity[]): Promise<void> {
  try {
    if (batch.some((e) => 'structuredProperties' in e.aspects)) await api.batchPatch(entityType, batch.map(demoPatch));
    else await api.batchUpsert(entityType, batch);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw new CliError(
      `The server refused the demo ${entityType} entities (${err.message}). ` +
        'A demo property soft deleted or changed by hand since the last load can cause this: restore it (propgraph restore --urn ...) or load into a fresh server.',
    );
  }
}
