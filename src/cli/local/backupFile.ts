/** A backup file's bytes, uncompressed (files are gzip as the server sends them; plain ones are read as they are). */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

export async function readBackupFile(file: string): Promise<AsyncIterable<Buffer>> {
  const handle = await open(file, 'r');
  const magic = Buffer.alloc(2);
  try {
    await handle.read(magic, 0, 2, 0);
  } finally {
    await handle.close();
  }
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  if (magic[0] !== 0x1f || magic[1] !== 0x8b) return raw;
  const gunzip = createGunzip({ chunkSize: 1 << 20 });
  raw.on('error', (err) => gunzip.destroy(err));
  return raw.pipe(gunzip);
}
