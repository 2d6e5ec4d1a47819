/**
 * Writes of what DataHub's web app keeps for people (saved views, the default views, the
 * tours a person has been through): the services that make them (viewService.ts,
 * datahubAppService.ts) authorize their callers themselves, since a person who may only
 * read still keeps their own views and tour steps. They write through the one write path,
 * with this gate instead of the scopes': it lets through exactly those entities and
 * aspects, and nothing else, whoever asks.
 */
import { ForbiddenError } from '../domain/errors.js';
import { NO_FACT_NEEDS } from '../domain/policies/resources.js';
import type { EntityPlan } from '../domain/writes/plan.js';
import type { PlanJudge, WriteGate } from './writes/writeGate.js';

/** The app-state aspects, by the entity type that holds them. */
const APP_STATE: Readonly<Record<string, readonly string[]>> = {
  dataHubView: ['dataHubViewInfo'],
  dataHubStepState: ['dataHubStepStateProperties'],
  globalSettings: ['globalSettingsInfo'],
  corpuser: ['corpUserSettings'],
};

function appState(entity: EntityPlan): boolean {
  const aspects = APP_STATE[entity.urn.entityType.name];
  if (!aspects) return false;
  if (entity.deleteEntity) return entity.urn.entityType.name === 'dataHubView';
  return entity.changes.every((c) => c.aspect === entity.urn.entityType.keyAspect || aspects.includes(c.aspect));
}

const appStateJudge: PlanJudge = {
  needs: NO_FACT_NEEDS,
  beforeLoad(entity) {
    if (!appState(entity)) throw new ForbiddenError(`${entity.urn.value}: only the app's saved views, settings and tour steps are written here`);
  },
  afterDecision() {},
  // These aspects hold no structured property values.
  valueDrops: () => 'allowed',
};

export const appStateGate: WriteGate = {
  judge: async () => appStateJudge,
};
