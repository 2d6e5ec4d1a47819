/**
 * What DataHub's web app asks the server at start-up (`appConfig`): which of its features
 * this server backs. The app registers a page only when its flag is on, so each flag says
 * whether propgraph answers that page's operations: structured properties, search with
 * its filters and browse, saved views, entity pages in the app's second design; not
 * lineage, ingestion, policies' pages, analytics, business attributes or forms, whose
 * operations propgraph does not serve (docs/datahub-compatibility.md).
 */

export interface AppConfigFacts {
  /** This build's version. */
  readonly version: string;
  /** Whether requests need a token (AUTH_ENABLED). */
  readonly authEnabled: boolean;
}

/** DataHub's FeatureFlagsConfig: every flag the app reads, on where propgraph serves the feature. */
const FEATURE_FLAGS = {
  showManageStructuredProperties: true,
  showSearchFiltersV2: true,
  showBrowseV2: true,
  showAutoCompleteResults: true,
  showNavBarRedesign: true,
  themeV2Enabled: true,
  themeV2Default: true,
  themeV2Toggleable: false,
  showSearchBarAutocompleteRedesign: false,
  showStatsTabRedesign: false,
  showHomePageRedesign: false,
  showIntroducePage: false,
  showProductUpdates: false,
  showAcrylInfo: false,
  showAccessManagement: false,
  showManageTags: false,
  showIngestionPageRedesign: false,
  showHomepageUserRole: false,
  showDefaultExternalLinks: true,
  showHasSiblingsFilter: false,
  showSeparateSiblings: false,
  showLineageExpandMore: false,
  showLineageFilterNodes: false,
  showTestsInHealthIcon: false,
  platformBrowseV2: false,
  lineageGraphV2: false,
  lineageGraphV3: false,
  schemaFieldCLLEnabled: false,
  schemaFieldLineageIgnoreStatus: false,
  hideLineageInSearchCards: true,
  hideDbtSourceInLineage: false,
  dataProductLineageEnabled: false,
  readOnlyModeEnabled: false,
  nestedDomainsEnabled: false,
  multipleDataProductsPerAsset: false,
  businessAttributeEntityEnabled: false,
  dataContractsEnabled: false,
  erModelRelationshipFeatureEnabled: false,
  entityVersioningEnabled: false,
  editableDatasetNameEnabled: false,
  glossaryBasedPoliciesEnabled: false,
  logicalModelsEnabled: false,
  metricsEnabled: false,
  contextDocumentsEnabled: false,
  documentationFileUploadV1: false,
  assetSummaryPageV1: false,
  datasetSummaryPageV1: false,
  ingestionOnboardingRedesignV1: false,
  i18nEnabled: false,
  browserTracingEnabled: false,
  browserWebVitalsEnabled: false,
} as const;

export function datahubAppConfig(facts: AppConfigFacts) {
  return {
    appVersion: facts.version,
    authConfig: { tokenAuthEnabled: facts.authEnabled },
    featureFlags: FEATURE_FLAGS,
    viewsConfig: { enabled: true },
    analyticsConfig: { enabled: false },
    policiesConfig: { enabled: false, platformPrivileges: [], resourcePrivileges: [] },
    identityManagementConfig: { enabled: false },
    managedIngestionConfig: { enabled: false },
    lineageConfig: { supportsImpactAnalysis: false },
    testsConfig: { enabled: false },
    telemetryConfig: { enableThirdPartyLogging: false },
    chromeExtensionConfig: { enabled: false, lineageEnabled: false },
    homePageConfig: { firstInPersonalSidebar: 'YOUR_ASSETS' as const },
    searchBarConfig: { apiVariant: 'AUTOCOMPLETE_FOR_MULTIPLE' as const },
    searchCardConfig: { showDescription: true },
    searchFlagsConfig: { defaultSkipHighlighting: true },
    visualConfig: { logoUrl: null, faviconUrl: null, showFullTitleInLineage: false, queriesTab: null, entityProfiles: null, searchResult: { enableNameHighlight: false }, theme: null, application: null },
  };
}
