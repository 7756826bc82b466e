// The start of a file chosen for import, read in the browser so the import page can show its
// header and first rows before anything is uploaded: a CSV's first 64 KB, or of a ZIP, the
// first CSV entry's (its central directory read from the end, the entry inflated with the
// browser's DecompressionStream). Anything it cannot read (ZIP64, encryption, another
// compression) gives null: the page then says the columns are guessed on upload.

const HEAD_BYTES = 64 * 1024;
/** Compressed bytes read of a ZIP entry: enough for HEAD_BYTES of CSV at any sane ratio. */
const ZIP_ENTRY_BYTES = 1024 * 1024;

export interface FileHead {
  /** The CSV's name (the ZIP entry's, for a ZIP). */
  name: string;
  text: string;
  /** Whether the text stops before the file's end (its last line may be cut). */
  cut: boolean;
}

const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 0x03 || b[2] === 0x05);

async function bytes(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

export async function readHead(file: File): Promise<FileHead | null> {
  const start = await bytes(file.slice(0, HEAD_BYTES));
  if (!isZip(start)) return { name: file.name, text: new TextDecoder().decode(start), cut: file.size > HEAD_BYTES };
  try {
    return await zipHead(file);
  } catch {
    return null;
  }
}

/** The first .csv entry of a ZIP (not a folder, nor macOS's __MACOSX/ and ._ files). */
async function zipHead(file: File): Promise<FileHead | null> {
  const tailFrom = Math.max(0, file.size - 65_557);
  const tail = await bytes(file.slice(tailFrom));
  const v = new DataView(tail.buffer);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (v.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const cdSize = v.getUint32(eocd + 12, true);
  const cdOffset = v.getUint32(eocd + 16, true);
  const cd = await bytes(file.slice(cdOffset, cdOffset + cdSize));
  const c = new DataView(cd.buffer);
  for (let p = 0; p + 46 <= cd.length && c.getUint32(p, true) === 0x02014b50;) {
    const flags = c.getUint16(p + 8, true);
    const method = c.getUint16(p + 10, true);
    const compressed = c.getUint32(p + 20, true);
    const size = c.getUint32(p + 24, true);
    const nameLen = c.getUint16(p + 28, true);
    const next = p + 46 + nameLen + c.getUint16(p + 30, true) + c.getUint16(p + 32, true);
    const local = c.getUint32(p + 42, true);
    const path = new TextDecoder().decode(cd.subarray(p + 46, p + 46 + nameLen));
    const base = path.split('/').pop() ?? path;
    p = next;
    if (!/\.csv$/i.test(base) || base.startsWith('._') || path.startsWith('__MACOSX/') || flags & 1) continue;
    if (method !== 0 && method !== 8) return null;
    const header = new DataView((await bytes(file.slice(local, local + 30))).buffer);
    const dataFrom = local + 30 + header.getUint16(26, true) + header.getUint16(28, true);
    const data = file.slice(dataFrom, dataFrom + Math.min(compressed, ZIP_ENTRY_BYTES));
    const text = method === 0 ? new TextDecoder().decode(await bytes(data.slice(0, HEAD_BYTES))) : await inflatedHead(data);
    return { name: base, text, cut: size > HEAD_BYTES };
  }
  return null;
}

/** Up to HEAD_BYTES of a deflated entry (a cut-off stream ends in an error, after its data). */
async function inflatedHead(data: Blob): Promise<string> {
  const reader = data.stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < HEAD_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
  } catch {
    /* the entry was cut where the slice ends: what came out is the head */
  }
  return text;
}

/**
 * The first `max` records of CSV text (quotes, doubled quotes, the delimiter and line breaks in
 * quoted fields, CRLF), without empty lines; a record the cut text may have ended is left out.
 */
export function csvRecords(text: string, delim: string, max: number, cut: boolean): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    record.push(field);
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
    field = '';
  };
  for (; i < text.length && records.length < max; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delim) {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += ch;
  }
  if (records.length < max && !cut && (field !== '' || record.length)) endRecord();
  return records;
}
