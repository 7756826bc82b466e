// The JavaScript an admin page loads: its module scripts and every file they import, statically
// (`from"./x.js"`) and, with `dynamic`, on demand (`import("./x.js")`, as the editor island
// loads TipTap for rich text). Used by the island tests and by bench:admin's sizes.

const STATIC = /(?:import|from)\s*"\.\/([\w-]+\.js)"/g;
const DYNAMIC = /import\(\s*"\.\/([\w-]+\.js)"\s*\)/g;

/** Each file's path (/admin/assets/…) and text, in the order they are reached. */
export async function pageScripts(baseUrl: string, html: string, o: { dynamic: boolean }): Promise<{ path: string; text: string }[]> {
  const seen = new Set<string>();
  const files: { path: string; text: string }[] = [];
  const queue = [...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1]);
  while (queue.length) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const res = await fetch(baseUrl + path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    const text = await res.text();
    files.push({ path, text });
    for (const re of o.dynamic ? [STATIC, DYNAMIC] : [STATIC]) for (const m of text.matchAll(re)) queue.push(`/admin/assets/${m[1]}`);
  }
  return files;
}
