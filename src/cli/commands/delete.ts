/**
 * `propgraph delete --urn <urn> [--hard [--force]]` (docs/contract.md §5, §9). Soft delete
 * writes `status.removed = true` and is reversible; hard delete removes the entity
 * (for a structured property, a server job then removes its values) and asks first.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { tryParseUrn } from '../../domain/urn.js';
import { describeImpact } from '../../domain/valueImpact.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { confirm, printLine } from '../terminal.js';

export async function deleteEntity(ctx: CommandContext, options: { urn: string; hard?: boolean; force?: boolean; dryRun?: boolean }): Promise<ExitCode> {
  const parsed = tryParseUrn(options.urn);
  if (!parsed.ok) throw new CliError(`'${options.urn}' is not a valid urn: ${parsed.reason}`, EXIT.usage);
  const entityType = parsed.urn.entityType.name;
  const api = ctx.api();
  const existing = await api.getEntity(entityType, options.urn, ['status']);
  if (!existing) throw new CliError(`${options.urn} does not exist; nothing was deleted.`);

  if (options.dryRun) {
    if (!options.hard) throw new CliError('--dry-run shows what a hard delete would remove; add --hard (a soft delete removes nothing)', EXIT.usage);
    const impact = await api.deleteImpact(entityType, options.urn);
    printLine(ctx.terminal.stdout, `A hard delete of ${options.urn} would remove ${describeImpact(impact)}. Nothing was deleted (dry run).`);
    return EXIT.ok;
  }
  if (!options.hard) {
    await api.upsertAspect(entityType, options.urn, 'status', { removed: true });
    printLine(ctx.terminal.stdout, `Soft deleted ${options.urn}. Nothing was removed; restore it with: propgraph restore --urn '${options.urn}'`);
    return EXIT.ok;
  }
  if (!options.force) {
    const impact = describeImpact(await api.deleteImpact(entityType, options.urn));
    const consequence =
      entityType === ENTITY.structuredProperty.name ? ` and remove its values from every entity that holds them (${impact})` : ` with all its aspects (and ${impact})`;
    const ok = await confirm(ctx.terminal, `This will permanently delete ${options.urn}${consequence}. This cannot be undone. Continue?`);
    if (!ok) throw new CliError(`Aborted; ${options.urn} was not deleted. Pass --force to skip this question.`);
  }
  await api.deleteEntity(entityType, options.urn);
  printLine(
    ctx.terminal.stdout,
    entityType === ENTITY.structuredProperty.name
      ? `Hard deleted ${options.urn}. Its values are being removed from entities by a background job.`
      : `Hard deleted ${options.urn}.`,
  );
  return EXIT.ok;
}
