/** The `status` aspect's shape: `{removed: boolean}`; on a structured property the soft delete switch (docs/contract.md §5). */
import * as z from 'zod';

export const statusShape = z
  .strictObject({ removed: z.boolean().describe('`true`: soft deleted (hidden, reversible).') })
  .meta({ id: 'Status', description: 'The `status` aspect. On a structured property, `removed: true` is a soft delete (reversible).' });
