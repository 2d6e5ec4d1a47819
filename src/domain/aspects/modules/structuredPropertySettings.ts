/**
 * A structured property's display settings (DataHub's StructuredPropertySettings): stored
 * as given, and searched by each flag, so that an app lists the properties it shows
 * (`showInSearchFilters=true`).
 */
import { booleanField } from '../../searchFieldKinds.js';
import { objectAspectRules } from '../../writes/plainAspectRules.js';
import type { AspectModule, FactSpec } from '../aspectModule.js';

const FLAGS = {
  isHidden: 'Hidden',
  showInSearchFilters: 'Shown in search filters',
  showInAssetSummary: 'Shown in asset summary',
  showInColumnsTable: 'Shown in columns table',
  showAsAssetBadge: 'Shown as asset badge',
} as const;

const NAME = 'structuredPropertySettings';

export const structuredPropertySettings: AspectModule = {
  name: NAME,
  pdlClass: 'com.linkedin.structured.StructuredPropertySettings',
  rules: objectAspectRules(NAME),
  facts: Object.keys(FLAGS).map((field): FactSpec => ({ field, path: [field], as: 'boolean' })),
  searchFields: Object.fromEntries(Object.entries(FLAGS).map(([field, label]) => [field, booleanField(label)])),
};
