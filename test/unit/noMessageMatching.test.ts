/**
 * No code recognises an error by its message text: errors cross layers as typed
 * classes with fields (ServiceError's code, field and propertyUrn; PostgreSQL's SQLSTATE
 * in the driver error's `code`; Meilisearch's error code). A message is for people; a
 * reworded message must never change what the service does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve('src');
/** Generated code (Prisma's client, the resolver types) is not ours to judge. */
const SKIPPED = new Set([path.join(SRC, 'store/generated'), path.join(SRC, 'graphql/generated')]);

/**
 * Lines allowed to match (file, and the line's code exactly), each with its reason: a
 * comparison that only shapes the wording of a message for people, never what the
 * service does. A new entry needs a reason no typed field can serve.
 */
const ALLOWED: ReadonlyArray<{ file: string; code: string; reason: string }> = [
  {
    file: 'identity/openIdProvider.ts',
    code: 'const detail = err.cause instanceof Error && err.cause.message !== err.message ? `${err.message}: ${err.cause.message}` : err.message;',
    reason: 'leaves out a cause whose text repeats the error it caused, so the refusal does not say the same thing twice',
  },
];

/** Ways code reads a message's text to decide something. */
const PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'a string method on a message', pattern: /\bmessage\s*\??\.\s*(includes|startsWith|endsWith|match|matchAll|search|indexOf|lastIndexOf)\s*\(/ },
  { name: 'a message compared', pattern: /(?<!typeof\s+[\w.?]*)\.message\s*[!=]==?|[!=]==?\s*[\w.?]*\.message\b/ },
  { name: 'a regular expression run on a message', pattern: /\.(test|exec)\(\s*(String\(\s*)?[\w.?()]*\.message\b/ },
  { name: 'a regular expression run on an error made text', pattern: /\.(test|exec)\(\s*String\(\s*(err|error|e|cause)\b/ },
  { name: 'a regular expression run on a template holding a message', pattern: /\.(test|exec)\(\s*`[^`]*\$\{[^}]*\.message\b/ },
];

function sourceFiles(dir: string): string[] {
  if (SKIPPED.has(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The code of a line, without a trailing // comment or a line of a block comment. */
function codeOf(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith('*') || trimmed.startsWith('/*') || trimmed.startsWith('//')) return '';
  return line.replace(/\s\/\/ .*$/, '');
}

function messageMatches(text: string): Array<{ line: number; kind: string; code: string }> {
  const found: Array<{ line: number; kind: string; code: string }> = [];
  text.split('\n').forEach((line, i) => {
    const code = codeOf(line);
    for (const { name, pattern } of PATTERNS) if (pattern.test(code)) found.push({ line: i + 1, kind: name, code: code.trim() });
  });
  return found;
}

describe('errors are recognised by their class and fields, never by their message', () => {
  test('the patterns find each way of matching a message', () => {
    const samples = [
      'if (err.message.includes(urn)) relocate();',
      "if (err instanceof AlreadyExistsError && err.message === ASPECT_EXISTS) explain();",
      'return RETRYABLE.test(err.message);',
      "return CONNECTION.test(`${err.message} ${code}`);",
      'if (/call stack/i.test(e.message)) deep();',
      'if (/ECONNRESET/.test(String(err))) retry();',
      "if (issue.message.startsWith(KNOWN)) known();",
      'const m = error.message.match(/x/);',
    ];
    for (const sample of samples) expect(messageMatches(sample)).toHaveLength(1);
  });

  test('typed checks and messages made for people are not matches', () => {
    const samples = [
      "if (err instanceof SearchRequestError && err.code === 'index_not_found') retry();",
      "const detail = typeof errorBody.message === 'string' ? errorBody.message : undefined;",
      'throw relocated(err, path, `${path}: ${err.message}`);',
      "log.error({ err: (err as Error).message }, 'failed');",
    ];
    for (const sample of samples) expect(messageMatches(sample)).toEqual([]);
  });

  test('no source file matches an error by its message text', () => {
    const offenders = sourceFiles(SRC).flatMap((file) => {
      const relative = path.relative(SRC, file);
      return messageMatches(readFileSync(file, 'utf8'))
        .filter((m) => !ALLOWED.some((a) => a.file === relative && a.code === m.code))
        .map((m) => `src/${relative}:${m.line}: ${m.kind}: ${m.code}`);
    });
    expect(offenders).toEqual([]);
  });

  test('every line the allow-list names is still there and has its reason', () => {
    for (const { file, code, reason } of ALLOWED) {
      expect(reason.length).toBeGreaterThan(20);
      expect(messageMatches(readFileSync(path.join(SRC, file), 'utf8')).map((m) => m.code)).toContain(code);
    }
  });
});
