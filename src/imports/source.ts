// What an uploaded file holds: one CSV, or a ZIP of CSV files. Checked before the import
// starts (so a wrong file is a 400), and opened again, entry by entry, by the parser.
import { open as openFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { DomainError, invalid } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';

/** Entries smaller than this are not ratio-checked (tiny files compress oddly). */
const RATIO_CHECK_FROM_BYTES = 1024 * 1024;

export interface CsvFile {
  /** Base name shown in logs. */
  name: string;
  /** Path inside the ZIP; null for a plain CSV upload. */
  entry: string | null;
}

export interface ImportSource {
  path: string;
  kind: 'csv' | 'zip';
  files: CsvFile[];
}

const isCsvName = (name: string) => /\.csv$/i.test(name);
const baseName = (p: string) => p.split(/[\\/]/).pop() ?? p;

async function head(path: string, bytes: number): Promise<Buffer> {
  const fh = await openFile(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Decides what the upload is; throws 400 with the reason when it cannot be imported. */
export async function inspectUpload(path: string, uploadName: string): Promise<ImportSource> {
  const start = await head(path, 64 * 1024);
  if (start.length === 0) throw invalid('the uploaded file is empty');
  const zipMagic = start.length >= 4 && start[0] === 0x50 && start[1] === 0x4b && (start[2] === 0x03 || start[2] === 0x05);
  if (!zipMagic) {
    if (/\.zip$/i.test(uploadName)) throw invalid(`"${uploadName}" is not a valid ZIP archive`);
    if (start.includes(0)) throw invalid(`"${uploadName}" is neither a ZIP archive nor a CSV file`);
    return { path, kind: 'csv', files: [{ name: uploadName, entry: null }] };
  }

  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (e) {
    throw invalid(`"${uploadName}" is not a valid ZIP archive (${(e as Error).message})`);
  }
  const files: CsvFile[] = [];
  // Names (as a case-insensitive file system would see them) and local headers already seen: an
  // entry listed twice would be checked twice but read as one, past the size and ratio caps.
  const seenNames = new Set<string>();
  const seenOffsets = new Set<number>();
  let total = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const key = entry.fileName.normalize('NFC').toLowerCase();
      if (seenNames.has(key)) throw invalid(`the ZIP holds "${entry.fileName}" more than once; refusing it`);
      seenNames.add(key);
      if (seenOffsets.has(entry.relativeOffsetOfLocalHeader)) throw invalid(`the ZIP's entry "${entry.fileName}" shares its data with another entry; refusing a possible ZIP bomb`);
      seenOffsets.add(entry.relativeOffsetOfLocalHeader);
      const name = baseName(entry.fileName);
      if (entry.fileName.endsWith('/') || !isCsvName(name) || name.startsWith('._') || entry.fileName.startsWith('__MACOSX/')) continue;
      if (entry.isEncrypted()) throw invalid(`"${name}" in the ZIP is encrypted`);
      total += entry.uncompressedSize;
      if (total > LIMITS.importUncompressedBytes) throw invalid(`the ZIP expands to more than ${LIMITS.importUncompressedBytes / 1024 ** 3} GB; split it`);
      if (entry.uncompressedSize >= RATIO_CHECK_FROM_BYTES && entry.uncompressedSize > LIMITS.importCompressionRatio * Math.max(1, entry.compressedSize)) {
        throw invalid(`"${name}" in the ZIP is compressed more than ${LIMITS.importCompressionRatio}:1; refusing a possible ZIP bomb`);
      }
      files.push({ name, entry: entry.fileName });
    }
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw invalid(`"${uploadName}" is not a valid ZIP archive (${(e as Error).message})`);
  } finally {
    zip.close();
  }
  if (!files.length) throw invalid(`the ZIP "${uploadName}" holds no .csv file`);
  return { path, kind: 'zip', files };
}

/** Opens each CSV of the source in turn (the ZIP stays open until `close`). */
export async function openSource(src: ImportSource): Promise<{ open(file: CsvFile): Promise<Readable>; close(): void }> {
  if (src.kind === 'csv') {
    return { open: async () => createReadStream(src.path, { highWaterMark: 1 << 20 }), close: () => undefined };
  }
  const zip = await yauzl.openPromise(src.path, { lazyEntries: true, autoClose: false });
  const entries = new Map<string, yauzl.Entry>();
  for await (const entry of zip.eachEntry()) entries.set(entry.fileName, entry);
  return {
    async open(file) {
      const entry = entries.get(file.entry ?? '');
      if (!entry) throw new Error(`"${file.name}" is missing from the ZIP`);
      return zip.openReadStreamPromise(entry);
    },
    close: () => zip.close(),
  };
}
