// The packages the server's bundle (src/makeBundles.mjs) leaves to be loaded from
// node_modules as installed, kept apart so that test/e2e/serverBundle.test.ts holds the
// bundle to the same list: pino starts its transports in worker threads from files of its
// own; OpenTelemetry's and the sign-in's are loaded only when configured; the optional
// native parts of pg and ws are absent unless a user adds them; Apollo's createHash uses
// Node's crypto only through its own module's `require` (bundled, it has none and hashes
// every operation in JavaScript).
export const SERVER_EXTERNAL = /^(pino|pino-pretty|thread-stream|@opentelemetry\/.*|openid-client|jose|pg-native|bufferutil|utf-8-validate|@apollo\/utils\.createhash)(\/|$)/;
