/**
 * `propgraph restore --urn <urn>`: undoes a soft delete (`status.removed = false`), the
 * way back that `propgraph delete` names.
 */
import { tryParseUrn } from '../../domain/urn.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { aspectValue } from '../restApi.js';
import { printLine } from '../terminal.js';

export async function restoreEntity(ctx: CommandContext, options: { urn: string }): Promise<ExitCode> {
  const parsed = tryParseUrn(options.urn);
  if (!parsed.ok) throw new CliError(`'${options.urn}' is not a valid urn: ${parsed.reason}`, EXIT.usage);
  const entityType = parsed.urn.entityType.name;
  const api = ctx.api();
  const existing = await api.getEntity(entityType, options.urn, ['status']);
  if (!existing) throw new CliError(`${options.urn} does not exist; a hard-deleted entity cannot be restored.`);
  if (aspectValue<{ removed?: boolean }>(existing, 'status')?.removed !== true) {
    printLine(ctx.terminal.stdout, `${options.urn} is not deleted; nothing to restore.`);
    return EXIT.ok;
  }
  await api.upsertAspect(entityType, options.urn, 'status', { removed: false });
  printLine(ctx.terminal.stdout, `Restored ${options.urn}.`);
  return EXIT.ok;
}
