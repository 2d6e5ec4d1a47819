/**
 * A real OpenID provider for the sign-in suites (openIdProviderProcess.mjs: the npm
 * package oidc-provider 9, with a password-checking login page, a consent page and the
 * device-code pages), and a person's side of it over plain HTTP: a browser's cookie jar
 * and redirects, forms filled in and submitted, as someone approving `propgraph login`
 * on their phone would.
 *
 * oidc-provider 9 supports Node 22 and later only, and the machine's Node may be 20: the
 * provider runs under Node 24 from npm (nodeRelease.mjs). OIDC_PROVIDER_NODE names another binary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './build.js';
import { ensureNode24 } from './nodeRelease.mjs';

const PROCESS_SCRIPT = path.join(ROOT, 'test', 'support', 'openIdProviderProcess.mjs');

export interface ProviderPerson {
  readonly login: string;
  readonly password: string;
  readonly email: string;
  readonly name: string;
  readonly groups: readonly string[];
  readonly emailVerified?: boolean;
  /** Claims the provider sends instead of (or beside) the ones above, as a hostile or careless provider would. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Claims the provider leaves out. */
  readonly omitClaims?: readonly string[];
}

export interface ProviderClient {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly redirect_uris: readonly string[];
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly token_endpoint_auth_method: string;
}

/** The people of the suites: an admin, a steward, a reader, and one in no group. */
export const PEOPLE = {
  alice: { login: 'alice', password: 'alice-pw', email: 'alice@example.com', name: 'Alice Admin', groups: ['admins', 'staff'] },
  bob: { login: 'bob', password: 'bob-pw', email: 'bob@example.com', name: 'Bob Steward', groups: ['stewards', 'staff'] },
  carol: { login: 'carol', password: 'carol-pw', email: 'carol@example.com', name: 'Carol Reader', groups: ['staff'] },
  mallory: { login: 'mallory', password: 'mallory-pw', email: 'mallory@example.com', name: 'Mallory Outsider', groups: ['contractors'] },
} satisfies Record<string, ProviderPerson>;

/** The mapping the suites configure: admins, stewards write, the rest of staff reads, contractors nothing. */
export const GROUP_SCOPES = 'admins:admin,stewards:write,staff:read';

export const CLIENT_ID = 'propgraph';
export const CLIENT_SECRET = 'propgraph-test-secret';

/** One confidential client for both the console's callback and the device grant, as a Keycloak realm would have. */
export function propgraphClient(callbackUrl: string): ProviderClient {
  return {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uris: [callbackUrl],
    grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  };
}

/** The server's environment for sign-in against this provider. */
export function oidcEnv(issuer: string): Record<string, string> {
  return {
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
    OIDC_PROVIDER_NAME: 'Test IdP',
    OIDC_SCOPES: 'openid email profile groups',
    OIDC_GROUP_SCOPES: GROUP_SCOPES,
  };
}

/** A Node that oidc-provider 9 supports: OIDC_PROVIDER_NODE, or Node 24 installed from npm once. */
async function providerNode(): Promise<string> {
  return process.env.OIDC_PROVIDER_NODE ?? ensureNode24();
}

export interface RunningProvider {
  readonly issuer: string;
  stop(): Promise<void>;
}

export async function startOpenIdProvider(setup: { clients: readonly ProviderClient[]; people?: readonly ProviderPerson[]; clockOffsetSeconds?: number }): Promise<RunningProvider> {
  const node = await providerNode();
  const options = { clients: setup.clients, people: setup.people ?? Object.values(PEOPLE), clockOffsetSeconds: setup.clockOffsetSeconds ?? 0 };
  const child: ChildProcess = spawn(node, [PROCESS_SCRIPT, JSON.stringify(options)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the OpenID provider did not start in 60 s: ${stderr}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited (${code}) before it started: ${stderr}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { issuer: string }).issuer);
    });
  });
  return {
    issuer,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A browser's memory of cookies, per host, enough for a provider's pages and propgraph's /auth routes. */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, { value: string; path: string }>>();

  header(url: URL): string | undefined {
    const jar = this.cookies.get(url.host);
    if (!jar) return undefined;
    const sent = [...jar.entries()].filter(([, c]) => url.pathname.startsWith(c.path)).map(([name, c]) => `${name}=${c.value}`);
    return sent.length > 0 ? sent.join('; ') : undefined;
  }

  /** One cookie's value for `url`'s host, whatever its path. */
  value(url: URL, name: string): string | undefined {
    return this.cookies.get(url.host)?.get(name)?.value;
  }

  store(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((s) => s.trim());
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      const attr = new Map(attributes.map((a) => [a.split('=')[0]!.toLowerCase(), a.slice(a.indexOf('=') + 1)]));
      const jar = this.cookies.get(url.host) ?? new Map();
      this.cookies.set(url.host, jar);
      const expired = attr.get('max-age') === '0' || (attr.has('expires') && Date.parse(attr.get('expires')!) < Date.now());
      if (expired || value === '') jar.delete(name);
      else jar.set(name, { value, path: attr.get('path') ?? '/' });
    }
  }
}

export interface Visit {
  readonly url: URL;
  readonly status: number;
  readonly body: string;
}

/** Requests `url` as a browser does, following redirects with the jar, until a page (or a URL `stopAt` accepts) answers. */
export async function browse(jar: CookieJar, url: string | URL, init: { method?: string; form?: URLSearchParams } = {}, stopAt: (url: URL) => boolean = () => false): Promise<Visit> {
  let current = new URL(url);
  let method = init.method ?? 'GET';
  let body: string | undefined = init.form?.toString();
  for (let hops = 0; hops < 20; hops++) {
    if (stopAt(current)) return { url: current, status: 0, body: '' };
    const cookie = jar.header(current);
    const response = await fetch(current, {
      method,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), accept: 'text/html' },
      ...(body !== undefined ? { body } : {}),
    });
    jar.store(current, response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.arrayBuffer();
      current = new URL(location, current);
      // 303, and 302 after a POST as browsers do: the next request is a GET.
      if (response.status === 303 || (response.status === 302 && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { url: current, status: response.status, body: await response.text() };
  }
  throw new Error(`more than 20 redirects from ${String(url)}`);
}

export interface PageForm {
  readonly action: URL;
  readonly fields: URLSearchParams;
}

/** The forms of an HTML page with their hidden and pre-filled fields (no script runs, as in a plain browser). */
export function formsOf(visit: Visit): PageForm[] {
  const forms: PageForm[] = [];
  for (const m of visit.body.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const action = /\baction="([^"]*)"/i.exec(m[1]!)?.[1] ?? visit.url.href;
    const fields = new URLSearchParams();
    for (const input of m[2]!.matchAll(/<input\b([^>]*)>/gi)) {
      const name = /\bname="([^"]*)"/i.exec(input[1]!)?.[1];
      const value = /\bvalue="([^"]*)"/i.exec(input[1]!)?.[1] ?? '';
      if (name) fields.set(name, value.replace(/&amp;/g, '&').replace(/&quot;/g, '"'));
    }
    forms.push({ action: new URL(action.replace(/&amp;/g, '&'), visit.url), fields });
  }
  return forms;
}

/** Submits the form whose action ends with `actionEnd`, with `values` filled in. */
export async function submit(jar: CookieJar, visit: Visit, actionEnd: string, values: Record<string, string> = {}, stopAt?: (url: URL) => boolean): Promise<Visit> {
  const form = formsOf(visit).find((f) => f.action.pathname.endsWith(actionEnd));
  if (!form) throw new Error(`no form to ${actionEnd} on ${visit.url.href} (status ${visit.status}): ${visit.body.slice(0, 500)}`);
  for (const [k, v] of Object.entries(values)) form.fields.set(k, v);
  return browse(jar, form.action, { method: 'POST', form: form.fields }, stopAt);
}

/**
 * Signs in at the provider's pages from wherever they start (login, then consent when
 * asked: allowed, or declined with `decline`), until `stopAt` or a final page.
 */
export async function signInAtProvider(jar: CookieJar, start: Visit, person: ProviderPerson, stopAt?: (url: URL) => boolean, decline = false): Promise<Visit> {
  let visit = start;
  for (let step = 0; step < 5; step++) {
    if (visit.status === 0) return visit;
    const actions = formsOf(visit).map((f) => f.action.pathname);
    if (actions.some((a) => a.endsWith('/login'))) visit = await submit(jar, visit, '/login', { login: person.login, password: person.password }, stopAt);
    else if (actions.some((a) => a.endsWith('/confirm'))) visit = await submit(jar, visit, decline ? '/abort' : '/confirm', {}, stopAt);
    else return visit;
  }
  return visit;
}

/**
 * Approves a device code as its person would: opens the verification URI, enters the
 * code if the page asks for it, confirms it, signs in, allows.
 */
export async function approveDevice(verificationUriComplete: string, person: ProviderPerson, options: { decline?: boolean } = {}): Promise<Visit> {
  const jar = new CookieJar();
  const userCode = new URL(verificationUriComplete).searchParams.get('user_code') ?? '';
  let visit = await browse(jar, verificationUriComplete);
  for (let step = 0; step < 3 && formsOf(visit).some((f) => f.action.pathname.endsWith('/device')); step++) {
    const form = formsOf(visit).find((f) => f.action.pathname.endsWith('/device'))!;
    visit = await submit(jar, visit, '/device', form.fields.has('confirm') ? {} : { user_code: userCode });
  }
  return signInAtProvider(jar, visit, person, undefined, options.decline ?? false);
}

/**
 * A console sign-in without a browser: /auth/login, the provider's pages, the callback;
 * the session's secret is what the callback set in the browser session cookie (as a
 * bearer token it acts as the same session).
 */
export async function signInThroughConsoleRoutes(serverUrl: string, person: ProviderPerson): Promise<{ token: string | undefined; landing: URL; jar: CookieJar }> {
  const jar = new CookieJar();
  const server = new URL(serverUrl);
  const backHome = (url: URL) => url.host === server.host && !url.pathname.startsWith('/auth/');
  const start = await browse(jar, `${serverUrl}/auth/login?returnTo=/search`, {}, backHome);
  const landing = await signInAtProvider(jar, start, person, backHome);
  return { token: jar.value(server, 'propgraph_session'), landing: landing.url, jar };
}

/** Why the browser's last console sign-in was refused, as GET /auth/sign-in-error tells it (once); undefined when there is nothing to tell. */
export async function signInErrorOf(serverUrl: string, jar: CookieJar): Promise<{ code: string; message: string } | undefined> {
  const url = new URL('/auth/sign-in-error', serverUrl);
  const cookie = jar.header(url);
  const response = await fetch(url, { headers: cookie ? { cookie } : {} });
  jar.store(url, response);
  return response.status === 200 ? ((await response.json()) as { code: string; message: string }) : undefined;
}
