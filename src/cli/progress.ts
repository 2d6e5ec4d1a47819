/**
 * Progress of a multi-entry run: a bar on stderr while it runs, only when stderr
 * is a terminal (never in pipes or logs), per-entry lines that do not tear the
 * bar, and a closing summary.
 */
import { printLine, type Terminal } from './terminal.js';

const REDRAW_EVERY_MS = 80;
const CLEAR_LINE = '\r\u001b[K';

export class RunProgress {
  private written = 0;
  private failed = 0;
  private lastDraw = 0;
  private readonly showBar: boolean;
  private barVisible = false;

  constructor(
    private readonly terminal: Terminal,
    private readonly total: number,
    private readonly label: string,
  ) {
    this.showBar = Boolean(terminal.stderr.isTTY) && total > 1;
  }

  /** One entry written; its line goes to stdout. */
  succeeded(line: string): void {
    this.written++;
    this.print('stdout', line);
  }

  /** One entry failed; its reason goes to stderr. */
  failedWith(line: string): void {
    this.failed++;
    this.print('stderr', line);
  }

  /** Redraws the bar for work that is not an entry result (e.g. reads before writing). */
  step(done: number, label = this.label): void {
    this.draw(done, label, false);
  }

  /** Whether a bar is drawn (stderr is a terminal); otherwise callers print plain progress lines. */
  get showsBar(): boolean {
    return this.showBar;
  }

  get counts(): { written: number; failed: number } {
    return { written: this.written, failed: this.failed };
  }

  /** Removes the bar and, for files of more than one entry, prints `N written, M failed`. */
  finish(extra?: string): void {
    this.clearBar();
    if (this.total > 1 || this.failed > 0) {
      printLine(this.terminal.stdout, `${this.written} written, ${this.failed} failed${extra ? `, ${extra}` : ''}`);
    }
  }

  private print(stream: 'stdout' | 'stderr', line: string): void {
    this.clearBar();
    printLine(this.terminal[stream], line);
    this.draw(this.written + this.failed, this.label, true);
  }

  /** Removes the bar without a summary (a run that wrote nothing). */
  clear(): void {
    this.clearBar();
  }

  private clearBar(): void {
    if (this.barVisible) {
      this.terminal.stderr.write(CLEAR_LINE);
      this.barVisible = false;
    }
  }

  private draw(done: number, label: string, force: boolean): void {
    if (!this.showBar) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < REDRAW_EVERY_MS && done < this.total) return;
    this.lastDraw = now;
    const columns = this.terminal.stderr.columns ?? 80;
    const counter = ` ${done}/${this.total} ${label}${this.failed > 0 ? ` (${this.failed} failed)` : ''}`;
    const width = Math.max(10, Math.min(40, columns - counter.length - 3));
    const filled = Math.round((done / Math.max(1, this.total)) * width);
    this.terminal.stderr.write(`${CLEAR_LINE}[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${counter}`);
    this.barVisible = true;
  }
}
