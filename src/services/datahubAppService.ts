/**
 * What DataHub's web app asks of the server as a whole: its start-up configuration
 * (`appConfig`), from this server's own settings (domain/datahubAppConfig.ts).
 */
import { datahubAppConfig, type AppConfigFacts } from '../domain/datahubAppConfig.js';

export class DataHubAppService {
  constructor(private readonly facts: AppConfigFacts) {}

  /** Anyone signed in may read it: the app needs it before it shows anything. */
  appConfig(): ReturnType<typeof datahubAppConfig> {
    return datahubAppConfig(this.facts);
  }
}
