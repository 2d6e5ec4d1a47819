/**
 * DataHub's web app's start-up configuration (src/domain/datahubAppConfig.ts): the pages
 * propgraph serves are on, the ones it does not are off, and the server's own settings show.
 */
import { datahubAppConfig } from '../../src/domain/datahubAppConfig.js';

test('the structured-properties page, search filters, browse and views are on; lineage, ingestion and policies off', () => {
  const config = datahubAppConfig({ version: '1.2.3', authEnabled: true });
  expect(config.featureFlags).toMatchObject({ showManageStructuredProperties: true, showSearchFiltersV2: true, showBrowseV2: true });
  expect(config.viewsConfig.enabled).toBe(true);
  expect(config.featureFlags).toMatchObject({ lineageGraphV2: false, showIngestionPageRedesign: false });
  expect([config.managedIngestionConfig.enabled, config.policiesConfig.enabled, config.analyticsConfig.enabled]).toEqual([false, false, false]);
});

test("the version and whether tokens are needed are the server's", () => {
  expect(datahubAppConfig({ version: '9.9.9', authEnabled: false })).toMatchObject({ appVersion: '9.9.9', authConfig: { tokenAuthEnabled: false } });
});
