/**
 * The process's streams as the commands see them, so that prompts, progress and
 * output decide by what is attached (a terminal or a pipe) and tests can run the
 * real program as a subprocess.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export interface OutStream extends Pick<Writable, 'write'> {
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface InStream extends Readable {
  readonly isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export interface Terminal {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly stdin: InStream;
}

export function printLine(stream: OutStream, line: string): void {
  stream.write(`${line}\n`);
}

/**
 * Asks one question on stderr and reads one line from stdin (also from a pipe, so
 * scripts can answer). Undefined when stdin ends first. `hidden` stops a terminal
 * from echoing what is typed (for tokens).
 */
export async function ask(terminal: Terminal, question: string, options: { hidden?: boolean } = {}): Promise<string | undefined> {
  const hidden = Boolean(options.hidden && terminal.stdin.isTTY);
  const rl = createInterface({ input: terminal.stdin, output: terminal.stderr as NodeJS.WritableStream, terminal: Boolean(terminal.stdin.isTTY) });
  if (hidden) {
    // readline echoes through _writeToOutput; after the question is shown, echo nothing.
    const internals = rl as unknown as { _writeToOutput: (s: string) => void };
    let questionShown = false;
    const original = internals._writeToOutput.bind(rl);
    internals._writeToOutput = (s: string) => {
      if (!questionShown) original(s);
      else if (s.includes('\n') || s.includes('\r')) original('\n');
    };
    terminal.stderr.write(question);
    questionShown = true;
  } else {
    terminal.stderr.write(question);
  }
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) {
        terminal.stderr.write('\n');
        resolve(undefined);
      }
    });
  });
}

/** A yes/no question whose default is no. */
export async function confirm(terminal: Terminal, question: string): Promise<boolean> {
  const answer = await ask(terminal, `${question} [y/N] `);
  return answer !== undefined && /^y(es)?$/i.test(answer.trim());
}
