/**
 * The queries and mutations DataHub's web app sends beyond propgraph's own: its start-up
 * configuration, saved views and their defaults, and what its shell asks for that
 * propgraph keeps no data of (recommendations, quick filters, schema versions, browse paths,
 * posts, roles, product updates): an empty answer of the shape the app reads
 * (docs/datahub-compatibility.md lists them).
 */
import { tryParseUrn } from '../../domain/urn.js';
import { scopeAllows } from '../../domain/accessToken.js';
import { ForbiddenError } from '../../domain/errors.js';
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { editsSomeProperty } from '../../services/accessService.js';
import { parseViewType } from '../../domain/savedView.js';
import type { MutationResolvers, QueryResolvers } from '../generated/resolvers-types.js';
import type { ViewPage } from '../../services/viewService.js';
import { entityModel } from './entityModel.js';

export const DataHubQuery: QueryResolvers = {
  appConfig: (_root, _args, ctx) => ctx.services.datahubApp.appConfig(),
  globalViewsSettings: async (_root, _args, ctx) => ({ defaultView: await ctx.services.views.globalDefault(ctx.caller) }),
  globalHomePageSettings: () => null,
  batchGetStepStates: async (_root, { input }, ctx) => ({ results: (await ctx.services.datahubApp.stepStates(ctx.caller, input.ids)).map((s) => ({ id: s.id, properties: [...s.properties] })) }),
  latestProductUpdate: () => null,
  corpUser: (_root, { urn }) => {
    const parsed = tryParseUrn(urn);
    return parsed.ok && parsed.urn.entityType === ENTITY.corpuser ? entityModel(urn) : null;
  },
  listPosts: (_root, { input }) => ({ start: input.start ?? 0, count: 0, total: 0, posts: [] }),
  listRoles: (_root, { input }) => ({ start: input.start ?? 0, count: 0, total: 0, roles: [] }),
  // DataHub's lineage: propgraph keeps none.
  searchAcrossLineage: () => ({ start: 0, count: 0, total: 0, facets: [] }),
  // What the caller may do on an entity, in DataHub's privilege names (its pages show only with VIEW_ENTITY_PAGE), as the policies answer there.
  getGrantedPrivileges: async (_root, { input }, ctx) => {
    if (input.actorUrn !== ctx.caller.actor && !scopeAllows(ctx.caller.scope, 'admin')) {
      throw new ForbiddenError(`actorUrn ${input.actorUrn} is not you (${ctx.caller.actor}); only an admin may ask about another principal`);
    }
    if (!input.resourceSpec) {
      const privileges = await ctx.services.access.privileges(ctx.caller);
      return { privileges: ['VIEW_ENTITY_PAGE', ...(privileges.editStructuredPropertyValues ? ['EDIT_ENTITY_PROPERTIES'] : [])] };
    }
    const access = await ctx.services.access.entityPrivileges(ctx.caller, input.resourceSpec.resourceUrn);
    return { privileges: [...(access.canView ? ['VIEW_ENTITY_PAGE'] : []), ...(editsSomeProperty(access) ? ['EDIT_ENTITY_PROPERTIES'] : [])] };
  },
  getQuickFilters: () => ({ quickFilters: [] }),
  listRecommendations: () => ({ modules: [] }),
  getSchemaVersionList: () => ({ latestVersion: null, semanticVersionList: [] }),
  // Browse paths are stored (browsePathsV2) but not indexed by level: the app's browse sidebar shows none.
  browseV2: (_root, { input }) => ({ start: input.start ?? 0, count: 0, total: 0, groups: [], metadata: { path: [...(input.path ?? [])].filter((p): p is string => typeof p === 'string'), totalNumEntities: 0 } }),
  entities: async (_root, { urns, checkForExistence }, ctx) => {
    const models = urns.map((u) => (tryParseUrn(u).ok ? entityModel(u) : null));
    // DataHub answers every URN unless asked to check (the app resolves platforms nothing stored).
    if (checkForExistence !== true) return models;
    const exists = await Promise.all(models.map((m) => (m && (m.entityType.builtIn || ctx.loaders.exists.load(m.urn))) ?? false));
    return models.map((m, i) => (exists[i] ? m : null));
  },
  listMyViews: async (_root, { input }, ctx) => listed(await ctx.services.views.listMine(ctx.caller, { viewType: input.viewType ?? null, start: input.start ?? null, count: input.count ?? null, query: input.query ?? null })),
  listGlobalViews: async (_root, { input }, ctx) => listed(await ctx.services.views.listGlobal(ctx.caller, { start: input.start ?? null, count: input.count ?? null, query: input.query ?? null })),
  view: (_root, { urn }, ctx) => ctx.services.views.get(ctx.caller, urn),
};

function listed(page: ViewPage) {
  return { start: page.start, count: page.count, total: page.total, views: [...page.views] };
}

export const DataHubMutation: MutationResolvers = {
  batchUpdateStepStates: async (_root, { input }, ctx) => ({
    results: ctx.receipts.resultOf(await ctx.services.datahubApp.setStepStates(ctx.caller, input.states.map((s) => ({ id: s.id, properties: s.properties.flatMap((p) => (p && typeof p.value === 'string' ? [{ key: p.key, value: p.value }] : [])) })))),
  }),
  createView: async (_root, { input }, ctx) => ctx.receipts.resultOf(await ctx.services.views.create(ctx.caller, parseViewType(input.viewType, 'viewType'), input)),
  updateView: async (_root, { urn, input }, ctx) => ctx.receipts.resultOf(await ctx.services.views.update(ctx.caller, urn, input)),
  deleteView: async (_root, { urn }, ctx) => ctx.receipts.resultOf(await ctx.services.views.delete(ctx.caller, urn)),
  updateGlobalViewsSettings: async (_root, { input }, ctx) => ctx.receipts.resultOf(await ctx.services.views.setGlobalDefault(ctx.caller, input.defaultView ?? null)),
  updateCorpUserViewsSettings: async (_root, { input }, ctx) => ctx.receipts.resultOf(await ctx.services.views.setMyDefault(ctx.caller, input.defaultView ?? null)),
};
