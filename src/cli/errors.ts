/**
 * How the CLI fails: every expected failure is a CliError carrying the exit code
 * that scripts can branch on (docs/cli.md lists them). Anything else is a bug and
 * is reported as such by main.ts.
 */
export const EXIT = {
  ok: 0,
  /** The server refused a write or a read (validation, not found), or some entries failed. */
  failed: 1,
  /** Bad command line or a YAML file that does not validate; nothing was written. */
  usage: 2,
  /** No server configured, or the server cannot be reached. */
  unreachable: 3,
  /** The server answered 401 or 403. */
  auth: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failed,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** An error answer from the server: `{"error", "message"}` with an HTTP status. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly kind: string,
    readonly detail: string | undefined,
    readonly route: string,
  ) {
    super(detail ? `${kind}: ${detail}` : kind, EXIT.failed);
  }

  /** The server has no such route (an older server), as opposed to a missing entity. */
  get isMissingRoute(): boolean {
    return this.status === 404 && this.kind.startsWith('No endpoint');
  }
}
