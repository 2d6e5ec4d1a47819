/** A definition's migration as GraphQL takes it (`{remap: [{from: {numberValue}, to: {...}}], convert, dropInvalid}`), in the domain's terms. */
import { parseMigrationRules, type MigrationRules } from '../../domain/valueMigration.js';
import { typedValueOfInput } from '../../services/propertyService.js';
import type { StructuredPropertyMigrationInput } from '../generated/resolvers-types.js';

export function migrationOfInput(input: StructuredPropertyMigrationInput | null | undefined): MigrationRules | undefined {
  if (!input) return undefined;
  return parseMigrationRules(
    {
      ...(input.remap ? { remap: input.remap.map((r, i) => ({ from: typedValueOfInput(r.from, `migration.remap[${i}].from`), to: typedValueOfInput(r.to, `migration.remap[${i}].to`) })) } : {}),
      ...(input.convert != null ? { convert: input.convert } : {}),
      ...(input.dropInvalid != null ? { dropInvalid: input.dropInvalid } : {}),
    },
    'migration',
  );
}
