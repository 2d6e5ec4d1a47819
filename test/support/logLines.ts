/** A pino logger whose lines a test can count: each line it writes, parsed, in order. */
import { pino } from 'pino';
import type { Logger } from '../../src/logger.js';

export interface LogLine {
  readonly level: number;
  readonly msg?: string;
  readonly [key: string]: unknown;
}

export function keptLogger(level = 'info'): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = {
    write(text: string): void {
      for (const line of text.split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as LogLine);
    },
  };
  return { log: pino({ level }, destination), lines };
}

/** The lines `run` made the logger write. */
export async function linesDuring(lines: readonly LogLine[], run: () => Promise<unknown>): Promise<LogLine[]> {
  const from = lines.length;
  await run();
  return lines.slice(from);
}
