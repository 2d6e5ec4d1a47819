import { principalKindOf } from '../../domain/principal.js';
import { parseUrn } from '../../domain/urn.js';
import type { CorpUserResolvers, PrincipalType } from '../generated/resolvers-types.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel } from '../models.js';
import { aspectFields, text } from './displayAspects.js';
import { entityTypeOf } from './entityModel.js';

/** The corpUserInfo aspect as DataHub's CorpUserInfo/CorpUserProperties; null when none is stored. */
async function infoOf(model: EntityModel, ctx: GraphQLContext) {
  const stored = await aspectFields(model, 'corpUserInfo', ctx);
  if (!stored) return null;
  return {
    active: stored.active !== false,
    displayName: text(stored.displayName),
    title: text(stored.title),
    firstName: text(stored.firstName),
    lastName: text(stored.lastName),
    fullName: text(stored.fullName),
    email: text(stored.email),
  };
}

export const CorpUser: CorpUserResolvers = {
  type: entityTypeOf,
  editableInfo: async (model, _args, ctx) => {
    const stored = await aspectFields(model, 'corpUserEditableInfo', ctx);
    const words = (v: unknown) => (Array.isArray(v) ? v.filter((w): w is string => typeof w === 'string') : null);
    return stored ? { pictureLink: text(stored.pictureLink), teams: words(stored.teams), skills: words(stored.skills) } : null;
  },
  status: async (model, _args, ctx) => {
    const stored = await aspectFields(model, 'corpUserStatus', ctx);
    return stored?.status === 'ACTIVE' || stored?.status === 'SUSPENDED' ? stored.status : null;
  },
  // The app's appearance and views settings: the second design, and the default view the person chose.
  settings: async (model, _args, ctx) => {
    const defaultView = ctx.caller.actor === model.urn ? await ctx.services.views.myDefault(ctx.caller) : null;
    const view = defaultView ? await ctx.services.views.get(ctx.caller, defaultView) : null;
    return { appearance: { showSimplifiedHomepage: false, showThemeV2: true }, views: { defaultView: view }, homePage: null, locale: null };
  },
  forms: () => null,
  relationships: () => ({ start: 0, count: 0, total: 0, relationships: [] }),
  username: (model) => parseUrn(model.urn).id,
  principalType: (model) => principalKindOf(model.urn).toUpperCase() as PrincipalType,
  info: (model, _args, ctx) => infoOf(model, ctx),
  properties: (model, _args, ctx) => infoOf(model, ctx),
  editableProperties: async (model, _args, ctx) => {
    const stored = await aspectFields(model, 'corpUserEditableInfo', ctx);
    return stored ? { displayName: text(stored.displayName), title: text(stored.title), pictureLink: text(stored.pictureLink), email: text(stored.email) } : null;
  },
};
