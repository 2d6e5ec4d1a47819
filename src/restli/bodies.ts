/**
 * The bodies of DataHub's Rest.li actions as its Python client sends them
 * (docs/datahub-compatibility.md): `{"proposal": MCP, "async": "false"}`,
 * `{"proposals": [MCP...], "async": ...}`, `{"urn"}` and `{"urn", "dryRun"}`. The aspect
 * inside a proposal is JSON *text* (`GenericAspect.value`); it is decoded in
 * proposals.ts, where its own rules apply.
 */
import * as z from 'zod';
import { LIMITS } from '../domain/limits.js';
import { urnText } from '../domain/shapes/common.js';

export const CHANGE_TYPES = ['UPSERT', 'CREATE', 'CREATE_ENTITY', 'PATCH', 'DELETE'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** Rest.li sends booleans of actions as strings (`"false"`); JSON booleans are taken too. */
const restliBoolean = z.union([z.boolean(), z.enum(['true', 'false'])], { error: 'must be "true" or "false"' }).transform((v) => v === true || v === 'true');

const proposalShape = z
  .strictObject({
    entityType: z.string().max(200).describe('The entity type of `entityUrn`, e.g. `dataset`.'),
    entityUrn: urnText.describe('The entity the aspect belongs to.'),
    changeType: z.enum(CHANGE_TYPES, { error: `must be one of ${CHANGE_TYPES.join(', ')}` }),
    aspectName: z.string().max(200),
    aspect: z
      .strictObject({
        value: z.string().describe('The aspect as JSON text; for PATCH a JSON patch (a list of operations, or `{arrayPrimaryKeys, patch}`).'),
        contentType: z.string().max(200).describe('`application/json`, or `application/json-patch+json` for PATCH.'),
      })
      .nullish(),
    // The CLI's `put --run-id` sends systemMetadata as JSON text.
    systemMetadata: z.union([z.record(z.string(), z.unknown()), z.string()]).nullish(),
    headers: z.record(z.string(), z.string()).nullish(),
    entityKeyAspect: z.unknown().optional(),
    auditHeader: z.unknown().optional(),
  })
  .meta({ id: 'MetadataChangeProposal', description: "A DataHub metadata change proposal as DataHub's Python client sends it on Rest.li." });

export type ProposalShape = z.output<typeof proposalShape>;

export const ingestProposalShape = z.strictObject({ proposal: proposalShape, async: restliBoolean.optional() });

export const ingestProposalBatchShape = z.strictObject({
  proposals: z.array(proposalShape).max(LIMITS.batchEntities),
  async: restliBoolean.optional(),
});

export const deleteEntityShape = z.strictObject({ urn: urnText });

export const deleteReferencesShape = z.strictObject({ urn: urnText, dryRun: restliBoolean.optional() });
