/**
 * The answer of `GET /config` (and `/gms/config`), DataHub GMS's handshake. DataHub's
 * client insists on `noCode: "true"` (a string), reads
 * `versions["acryldata/datahub"].version` to pick OpenAPI emit and API tracing (both
 * from 1.0.1 on a `core` server) and `telemetry.enabledCli`.
 */

/**
 * The DataHub release whose client contract propgraph follows (acryl-datahub
 * 1.6.0.16rc6, docs/datahub-compatibility.md); at or above 1.0.1 the SDK writes through
 * OpenAPI v3 and traces asynchronous writes.
 */
export const DATAHUB_CONTRACT_VERSION = 'v1.6.0';

export function serverConfig(propgraphVersion: string): Record<string, unknown> {
  return {
    noCode: 'true',
    patchCapable: true,
    statefulIngestionCapable: false,
    supportsImpactAnalysis: false,
    retention: 'false',
    timeZone: 'GMT',
    datasetUrnNameCasing: false,
    // propgraph collects nothing, so the client has nothing to send telemetry about.
    telemetry: { enabledCli: false, enabledIngestion: false },
    datahub: { serverType: 'prod', serverEnv: 'core' },
    versions: {
      'acryldata/datahub': { version: DATAHUB_CONTRACT_VERSION },
      propgraph: { version: propgraphVersion },
    },
    models: {},
  };
}
