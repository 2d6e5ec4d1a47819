/**
 * The OpenID Connect provider people sign in with, as the server's client of it: the
 * only importer of `openid-client`, as search/ is of meilisearch. It runs the two grants
 * propgraph uses, authorization code with PKCE (the console) and the device
 * authorization grant (`propgraph login`), both with the client's own credentials, so
 * no secret ever reaches a browser or a laptop. Every ID token is checked before its
 * claims are returned: signature against the provider's JWKS, issuer, audience,
 * expiry, nonce (code flow), and that it was not issued in the future (openid-client
 * checks `iat` only for its type: a token stamped an hour ahead would otherwise be
 * good for an hour more than the provider meant, issue #46 item 13).
 */
import type * as oidc from 'openid-client';
import { UnauthorizedError, UnavailableError } from '../domain/errors.js';
import type { Logger } from '../platform/logger.js';

export type Claims = Readonly<Record<string, unknown>>;

export interface ProviderOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  /** Space-separated scopes to ask for. */
  readonly scopes: string;
  /** Read from the userinfo endpoint when the ID token lacks it (providers that send groups only there). */
  readonly groupsClaim: string;
  readonly log: Logger;
}

/** What the browser must carry from the authorization request to the callback. */
export interface AuthorizationChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
}

export interface DeviceAuthorization {
  /** The secret the CLI polls with; it never leaves the CLI and this server. */
  readonly deviceCode: string;
  readonly userCode: string;
  readonly verificationUri: string;
  readonly verificationUriComplete: string | null;
  /** Seconds between polls. */
  readonly interval: number;
  readonly expiresIn: number;
}

export type DevicePoll =
  | { readonly state: 'pending' }
  | { readonly state: 'slow_down' }
  | { readonly state: 'denied'; readonly reason: string }
  | { readonly state: 'expired' }
  | { readonly state: 'approved'; readonly claims: Claims };

/**
 * openid-client (and jose under it) is loaded at the first sign-in: loaded with this
 * module, it was CPU at every start of a server (docs/decisions.md, "The subgraph schema,
 * checked once by codegen"), most of which never sign anyone in.
 */
type OpenIdClient = typeof oidc;
let client: Promise<OpenIdClient> | undefined;
const loadClient = (): Promise<OpenIdClient> => (client ??= import('openid-client'));

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** openid-client's codes for a provider that did not answer as one (rather than refused). */
const UNREACHABLE = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON']);
/** Seconds a request to the provider may take. */
const TIMEOUT_S = 15;
/**
 * Seconds the provider's clock may run ahead of ours: openid-client's own tolerance for
 * `exp` and `nbf`, applied to `iat` too. NTP keeps servers within a second; more is a
 * provider that is wrong, or a token that was made to outlive its lifetime.
 */
const CLOCK_SKEW_S = 30;

export class OpenIdProvider {
  private configuration: Promise<{ lib: OpenIdClient; config: oidc.Configuration }> | undefined;

  constructor(private readonly options: ProviderOptions) {}

  /** Discovery on first use (the provider may start after propgraph), retried after a failure. */
  private config(): Promise<{ lib: OpenIdClient; config: oidc.Configuration }> {
    this.configuration ??= this.discover().catch((err: unknown) => {
      this.configuration = undefined;
      throw err;
    });
    return this.configuration;
  }

  private async discover(): Promise<{ lib: OpenIdClient; config: oidc.Configuration }> {
    const { issuer, clientId, clientSecret } = this.options;
    const insecure = new URL(issuer).protocol === 'http:';
    const oidc = await loadClient();
    try {
      const config = await oidc.discovery(new URL(issuer), clientId, clientSecret, clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(), {
        timeout: TIMEOUT_S,
        // A provider on plain http is for a laptop or a test; the URL says so, nothing else does.
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
      // ID tokens come straight from the token endpoint, where TLS already vouches for the
      // issuer; the signature is checked too, so a provider reached over http, or through
      // an intercepting proxy, cannot be impersonated either.
      oidc.enableNonRepudiationChecks(config);
      config.timeout = TIMEOUT_S;
      return { lib: oidc, config };
    } catch (err) {
      this.options.log.warn({ issuer, err: (err as Error).message }, 'OpenID provider discovery failed');
      throw new UnavailableError(`The OpenID provider at ${issuer} could not be reached or did not answer its discovery document: ${(err as Error).message}`);
    }
  }

  /** Where to send the browser, and what the callback must check. */
  async authorizationRequest(redirectUri: string): Promise<{ url: URL; checks: AuthorizationChecks }> {
    const { lib: oidc, config } = await this.config();
    const checks: AuthorizationChecks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier(), redirectUri };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.options.scopes,
      response_type: 'code',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, checks };
  }

  /** Redeems the code the provider sent to the callback; the verified claims of the person. */
  async redeemCode(callbackUrl: URL, checks: AuthorizationChecks): Promise<Claims> {
    const { lib: oidc, config } = await this.config();
    // The callback is checked against the redirect URI the request named, whatever host the request came in on.
    const current = new URL(checks.redirectUri);
    current.search = callbackUrl.search;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      return await this.claimsOf(oidc, config, tokens);
    } catch (err) {
      throw this.refusal(oidc, err);
    }
  }

  async startDeviceAuthorization(): Promise<DeviceAuthorization> {
    const { lib: oidc, config } = await this.config();
    if (!config.serverMetadata().device_authorization_endpoint) {
      throw new UnavailableError(`The OpenID provider at ${this.options.issuer} offers no device authorization endpoint: enable the device authorization grant for client ${this.options.clientId}`);
    }
    try {
      const answer = await oidc.initiateDeviceAuthorization(config, { scope: this.options.scopes });
      return {
        deviceCode: answer.device_code,
        userCode: answer.user_code,
        verificationUri: answer.verification_uri,
        verificationUriComplete: answer.verification_uri_complete ?? null,
        interval: answer.interval ?? 5,
        expiresIn: answer.expires_in,
      };
    } catch (err) {
      throw this.refusal(oidc, err);
    }
  }

  /** One poll of the token endpoint (RFC 8628 3.4); the caller paces them. */
  async pollDeviceAuthorization(deviceCode: string): Promise<DevicePoll> {
    const { lib: oidc, config } = await this.config();
    try {
      const tokens = await oidc.genericGrantRequest(config, DEVICE_CODE_GRANT, { device_code: deviceCode });
      if (!tokens.id_token) throw new UnauthorizedError('The provider answered the device grant without an ID token: ask for the openid scope (OIDC_SCOPES)');
      return { state: 'approved', claims: await this.claimsOf(oidc, config, tokens) };
    } catch (err) {
      if (err instanceof oidc.ResponseBodyError) {
        if (err.error === 'authorization_pending') return { state: 'pending' };
        if (err.error === 'slow_down') return { state: 'slow_down' };
        if (err.error === 'expired_token') return { state: 'expired' };
        if (err.error === 'access_denied') return { state: 'denied', reason: err.error_description ?? 'the sign-in was declined at the provider' };
      }
      throw this.refusal(oidc, err);
    }
  }

  /** The ID token's claims, with the groups claim from userinfo when the ID token lacks it. */
  private async claimsOf(oidc: OpenIdClient, config: oidc.Configuration, tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): Promise<Claims> {
    const claims = tokens.claims();
    if (!claims) throw new UnauthorizedError('The provider sent no ID token: ask for the openid scope (OIDC_SCOPES)');
    const ahead = claims.iat - Math.floor(Date.now() / 1000);
    if (ahead > CLOCK_SKEW_S) {
      throw new UnauthorizedError(`The sign-in could not be verified: the ID token says it was issued ${ahead} s in the future (more than the ${CLOCK_SKEW_S} s of clock skew allowed); the provider's clock or this server's is wrong`);
    }
    const { groupsClaim } = this.options;
    const top = groupsClaim.split('.')[0]!;
    if (claims[groupsClaim] !== undefined || claims[top] !== undefined || !config.serverMetadata().userinfo_endpoint) return claims;
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    // The ID token's own claims win: userinfo only adds what it lacks.
    return { ...info, ...claims };
  }

  /** A failed exchange as the caller should hear it: the provider's refusal, or its absence. */
  private refusal(oidc: OpenIdClient, err: unknown): Error {
    if (err instanceof UnauthorizedError || err instanceof UnavailableError) return err;
    if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError) {
      return new UnauthorizedError(`The OpenID provider refused the sign-in: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`);
    }
    if (err instanceof oidc.ClientError && !UNREACHABLE.has(String(err.code))) {
      const detail = err.cause instanceof Error && err.cause.message !== err.message ? `${err.message}: ${err.cause.message}` : err.message;
      return new UnauthorizedError(`The sign-in could not be verified: ${detail}`);
    }
    this.options.log.warn({ issuer: this.options.issuer, err: (err as Error).message }, 'OpenID provider request failed');
    return new UnavailableError(`The OpenID provider at ${this.options.issuer} could not be reached: ${(err as Error).message}`);
  }
}
