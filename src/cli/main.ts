#!/usr/bin/env node
/**
 * Entry point of the `propgraph` command. The only module of the CLI that touches
 * the process: its environment, streams and exit code.
 */
import { homedir } from 'node:os';
import { CommanderError } from 'commander';
import { createContext } from './context.js';
import { ApiError, CliError, EXIT, type ExitCode } from './errors.js';
import { buildProgram } from './program.js';
import { printLine } from './terminal.js';

/**
 * A reader that goes away before the output ends (`propgraph properties list | head -1`)
 * ends the command quietly with the exit code it had so far: the same for every
 * command, here once, instead of a stack trace for EPIPE.
 */
function endQuietlyWhenTheReaderLeaves(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok);
    throw err;
  });
}

async function main(argv: string[]): Promise<ExitCode> {
  endQuietlyWhenTheReaderLeaves(process.stdout);
  endQuietlyWhenTheReaderLeaves(process.stderr);
  const terminal = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  const ctx = createContext(terminal, { env: process.env, home: homedir() });
  let code: ExitCode = EXIT.ok;
  const program = buildProgram(ctx, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version end through here too, with exit code 0.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof ApiError && err.isMissingRoute) {
      printLine(terminal.stderr, `Error: ${err.message} Is the server address right? Check it with \`propgraph init\` or PROPGRAPH_SERVER.`);
      return err.exitCode;
    }
    if (err instanceof CliError) {
      printLine(terminal.stderr, `Error: ${err.message}`);
      return err.exitCode;
    }
    printLine(terminal.stderr, `Unexpected error (a bug in propgraph): ${(err as Error)?.stack ?? String(err)}`);
    return EXIT.failed;
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exitCode = EXIT.failed;
  },
);
