/** A log destination whose lines a test can count: each line the server's logger writes, parsed, in order. */
import type { DestinationStream } from 'pino';

export interface LogLine {
  readonly level: number;
  readonly msg?: string;
  readonly [key: string]: unknown;
}

export function keptLines(): { destination: DestinationStream; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = {
    write(text: string): void {
      for (const line of text.split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as LogLine);
    },
  };
  return { destination, lines };
}

/** The lines `run` made the logger write. */
export async function linesDuring(lines: readonly LogLine[], run: () => Promise<unknown>): Promise<LogLine[]> {
  const from = lines.length;
  await run();
  return lines.slice(from);
}
