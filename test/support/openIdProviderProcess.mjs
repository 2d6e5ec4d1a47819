/**
 * A real OpenID provider for the sign-in suites: the npm package `oidc-provider`
 * (panva's certified implementation), run as a child process on a free loopback port,
 * with the pages a person sees: a login form that checks a password, a consent page,
 * and the package's own device-code pages. Started by test/support/openIdProvider.ts,
 * which passes the clients and people as JSON in argv[2] and reads one line from
 * stdout: `{"issuer": "http://127.0.0.1:<port>"}`.
 *
 * A hostile or broken provider is the same one with a setting: people whose claims say
 * what the suite wants (`claims` replaces claims, `omitClaims` drops them), or a clock
 * `clockOffsetSeconds` off (every time it stamps, `iat` and `exp` included).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';

const setup = JSON.parse(process.argv[2] ?? '{}');
const people = new Map(setup.people.map((p) => [p.login, p]));
if (setup.clockOffsetSeconds) {
  const realNow = Date.now;
  Date.now = () => realNow() + setup.clockOffsetSeconds * 1000;
}

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const escape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const page = (title, body) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`;

const provider = new Provider(issuer, {
  clients: setup.clients,
  cookies: { keys: [randomBytes(32).toString('hex')] },
  scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
  async findAccount(_ctx, id) {
    const person = people.get(id);
    if (!person) return undefined;
    return {
      accountId: id,
      claims: () => {
        const claims = { sub: id, email: person.email, email_verified: person.emailVerified ?? true, name: person.name, groups: person.groups, ...person.claims };
        for (const name of person.omitClaims ?? []) delete claims[name];
        return claims;
      },
    };
  },
  features: {
    devInteractions: { enabled: false },
    deviceFlow: { enabled: true },
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: { DeviceCode: 600, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
});
// Device clients poll every second, not RFC 8628's default five (as a provider with its
// polling interval set answers), so a sign-in in a suite waits about a second for its approval.
provider.use(async (ctx, next) => {
  await next();
  if (ctx.oidc?.route === 'device_authorization' && ctx.body?.device_code) ctx.body = { ...ctx.body, interval: 1 };
});
// Quiet: the suites read the provider's answers, not its log.
provider.on('server_error', (_ctx, err) => process.stderr.write(`provider error: ${err.stack}\n`));

function readForm(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

function send(res, status, html) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

const loginForm = (uid, client, error) =>
  page(
    'Sign in to the test provider',
    `<p>${escape(client)} asks you to sign in.</p>${error ? `<p role="alert">${escape(error)}</p>` : ''}
<form method="post" action="/interaction/${uid}/login" autocomplete="off">
<label for="login">Username</label> <input id="login" name="login" required>
<label for="password">Password</label> <input id="password" name="password" type="password" required>
<button type="submit">Sign in</button>
</form>`,
  );

const consentForm = (uid, client, scopes) =>
  page(
    'Allow access',
    `<p>${escape(client)} asks for: ${escape(scopes.join(', '))}.</p>
<form method="post" action="/interaction/${uid}/confirm"><button type="submit">Allow</button></form>
<form method="post" action="/interaction/${uid}/abort"><button type="submit">Deny</button></form>`,
  );

async function interaction(req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  const client = params.client_id;
  if (req.method === 'GET' && !action) {
    if (prompt.name === 'login') return send(res, 200, loginForm(uid, client));
    const scopes = [...(prompt.details.missingOIDCScope ?? [])];
    return send(res, 200, consentForm(uid, client, scopes));
  }
  if (req.method !== 'POST') return send(res, 405, page('Not allowed', ''));
  if (action === 'login') {
    const form = await readForm(req);
    const person = people.get(form.get('login') ?? '');
    if (!person || person.password !== form.get('password')) return send(res, 200, loginForm(uid, client, 'Wrong username or password.'));
    return provider.interactionFinished(req, res, { login: { accountId: person.login } }, { mergeWithLastSubmission: false });
  }
  if (action === 'confirm') {
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: session.accountId, clientId: client });
    if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
    if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
  if (action === 'abort') {
    return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person declined' }, { mergeWithLastSubmission: false });
  }
  return send(res, 404, page('Not found', ''));
}

const callback = provider.callback();
server.on('request', (req, res) => {
  const m = /^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/.exec(new URL(req.url, issuer).pathname);
  if (!m) return callback(req, res);
  interaction(req, res, m[1], m[2]).catch((err) => {
    process.stderr.write(`interaction failed: ${err.stack}\n`);
    if (!res.headersSent) send(res, 400, page('Sign-in failed', `<p>${escape(err.message)}</p>`));
  });
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
