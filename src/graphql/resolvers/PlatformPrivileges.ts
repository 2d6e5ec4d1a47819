import type { PlatformPrivilegesResolvers } from '../generated/resolvers-types.js';

/**
 * DataHub's platform privileges beside propgraph's own: the structured-properties page is
 * for everyone who may read (the definitions are public to readers; its edit controls follow
 * manageStructuredProperties), global views for those who may manage them, policies for
 * those the policies let manage them (the app offers its policies page only when appConfig
 * turns it on, which propgraph does not). The rest name DataHub pages propgraph does not
 * serve (ingestion, glossary, ...): false, so the app does not offer them.
 */
const no = () => false;

export const PlatformPrivileges: PlatformPrivilegesResolvers = {
  viewStructuredPropertiesPage: () => true,
  manageGlobalViews: (p) => p.manageGlobalViews,
  generatePersonalAccessTokens: (p) => p.managePersonalTokens,
  viewAnalytics: no,
  managePolicies: (p) => p.managePolicies,
  manageIdentities: no,
  manageIngestion: no,
  manageSecrets: no,
  manageDomains: no,
  viewTests: no,
  manageGlossaries: no,
  manageUserCredentials: no,
  manageTags: no,
  viewManageTags: no,
  createDomains: no,
  createTags: no,
  createLogicalModels: no,
  manageGlobalSettings: no,
  manageOwnershipTypes: no,
  manageGlobalAnnouncements: no,
  createBusinessAttributes: no,
  manageBusinessAttributes: no,
  manageApplications: no,
  manageFeatures: no,
  manageHomePageTemplates: no,
  manageDocuments: no,
  manageServiceAccounts: no,
};
