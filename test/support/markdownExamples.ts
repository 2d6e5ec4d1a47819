/**
 * Runs the shell examples of a Markdown document and compares them with the outputs
 * written beside them, so that a guide cannot drift from the server it describes.
 *
 * Every ```sh block runs, in order, in one bash process (variables and functions carry
 * over). A ```text block right after a ```sh block (blank lines between allowed) is its
 * expected output: the actual output must match it line by line, where `...` stands for
 * any text (ids, timestamps).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface ShellExample {
  readonly index: number;
  readonly script: string;
  /** The expected output, when the document shows one. */
  readonly expected: string | undefined;
  /** Line in the document where the block starts, for messages. */
  readonly line: number;
}

const FENCE = /^```(\w*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

export function shellExamples(markdown: string): ShellExample[] {
  const fences = [...markdown.matchAll(FENCE)].map((m) => ({
    lang: m[1]!,
    body: m[2]!,
    start: m.index!,
    end: m.index! + m[0].length,
  }));
  const examples: ShellExample[] = [];
  fences.forEach((fence, i) => {
    if (fence.lang !== 'sh') return;
    const next = fences[i + 1];
    const adjacent = next && next.lang === 'text' && markdown.slice(fence.end, next.start).trim() === '';
    examples.push({
      index: examples.length,
      script: fence.body,
      expected: adjacent ? next.body : undefined,
      line: markdown.slice(0, fence.start).split('\n').length,
    });
  });
  return examples;
}

const MARKER = '@@propgraph-example@@';

/** Runs the examples in one bash process; returns each one's output. */
export async function runShellExamples(
  examples: readonly ShellExample[],
  options: { cwd: string; env: NodeJS.ProcessEnv; prelude?: string; timeoutMs?: number },
): Promise<string[]> {
  const script = [options.prelude ?? '', ...examples.map((e) => `echo '${MARKER}'\n${e.script}`)].join('\n');
  // Asynchronously: the server under test runs in this process and must keep serving meanwhile.
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: options.cwd,
    env: options.env,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.split(`${MARKER}\n`).slice(1);
}

/** Whether `actual` matches the expected text, `...` standing for any text within a line. */
export function matchesExpected(actual: string, expected: string): boolean {
  const lines = (text: string) => text.replace(/\s+$/, '').split('\n').map((l) => l.replace(/\s+$/, ''));
  const want = lines(expected);
  const got = lines(actual);
  if (want.length !== got.length) return false;
  return want.every((line, i) => {
    const pattern = line.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
    return new RegExp(`^${pattern}$`).test(got[i]!);
  });
}
