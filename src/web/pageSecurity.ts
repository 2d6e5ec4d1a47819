/**
 * The Content-Security-Policy of the documentation pages. The API's own policy
 * (helmet's default) allows styles from any https origin and asks browsers to upgrade
 * every request to https, which breaks pages served over plain http on a LAN host.
 * The pages load only their own files: scripts from this server, inline styles (the
 * UIs set them at run time), images and fonts from this server or data: URLs.
 */
export function pageHelmet(extraConnectSrc: readonly string[] = []) {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        // The web console may call a GraphQL gateway on another origin (CONSOLE_GRAPHQL_URL).
        connectSrc: ["'self'", ...extraConnectSrc],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'self'"],
      },
    },
  };
}

export const PAGE_HELMET = pageHelmet();
