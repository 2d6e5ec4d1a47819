/** A CSV file's records read as a stream (csvFile.ts's reader, fed a piece at a time): the CLI's, apart from what the console shares. */
import { createReadStream } from 'node:fs';
import { CliError, EXIT } from '../errors.js';
import { CsvReader, type CsvRecord } from './csvFile.js';

/** The file's records, read a piece at a time. */
export async function* readCsvFile(file: string): AsyncGenerator<CsvRecord> {
  const reader = new CsvReader(file);
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  try {
    for await (const piece of stream as AsyncIterable<string>) yield* reader.push(piece);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`, EXIT.usage);
  }
  yield* reader.finish();
}

