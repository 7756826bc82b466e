// Reports import cycles in the TypeScript sources, and imports that cross a layer the wrong way:
// node scripts/check-cycles.mjs [ROOT] (ROOT defaults to src). Plain Node, no dependency. Exits 1
// when there is any cycle or layer violation, 2 on a usage error, 0 otherwise.
//
// What counts as an import: `import ... from '...'`, `import '...'`, `export ... from '...'` and
// `import('...')` whose specifier is relative ('./' or '../') and resolves to a .ts/.tsx file
// under ROOT ('./x.ts', './x.js' meaning './x.ts', './x', './x/index.ts'). Packages, node:
// modules and other files (JSON, HTML) cannot take part in a cycle of ours and are skipped.
//
// Two checks, each over the imports that make its kind of cycle a problem:
// (a) Folders. Each top-level folder of ROOT is one unit (src/campaigns/** is "campaigns"),
//     and each file directly in ROOT is a unit of its own ("context.ts", "app.ts"): they are
//     unrelated entry points and shared modules, and as one "root" unit, app.ts (which imports
//     every folder) and the folders that import context.ts's perContext() would put every
//     folder in one cycle and hide the real ones. Type-only imports are NOT counted here
//     (`import type`, `export type ... from`, `import { type A, type B }` where every
//     specifier is a type, and `typeof import('...')` / `import('...').Name` in type
//     positions): TypeScript erases them, so they do not make one folder load another, and
//     context.ts's AppContext type, which names the services of settings, mail and users and
//     which every folder takes, would otherwise put each of those folders in a cycle with it
//     although it is how a folder reaches a service without importing it. Type-only cycles
//     between files are still caught by (b).
// (b) Files. Every import counts, type-only ones included: two files that name each other,
//     even only by type, are one module cut in two, and the type can move to the file it
//     belongs to. (At run time only value imports matter; the chain marks type-only steps
//     with "→(type)".)
//
// Comments, and the contents of strings and template literals, are blanked by a small scanner
// before matching, so an import written in a comment or a string does not count. The scanner
// is not a TypeScript parser: it tells a regular expression from a division by the token
// before it (in .tsx files it does not look for regular expressions, as `</p>` would look like
// one), and a quoted string ends at the end of its line, so a stray quote (an apostrophe in
// JSX text) misreads at most one line; static imports sit at the top of a file, before any.
//
// Each cycle is printed as a chain (a → b → a); a folder step lists the file imports behind it.
// Cycles are grouped by strongly connected component, and within one, the chains are the
// shortest cycle through each import edge of the component, without repeats: every import
// that takes part in a cycle appears in some chain, so breaking the printed edges is enough.
//
// The layer rule, over every import (type-only ones included: a type names the layer too):
// - Services and stores never import http/ (ROOT's top-level http folder). They are called by
//   the routes, the admin pages, the CLI and the workers alike, so what they need (a type, a
//   rule, a reader) lives outside the edge, or the edge hands it in. A service or store is a
//   file named service.ts or store.ts, or ending in -service.ts or -store.ts, in any folder
//   but http/ itself (a store of the edge's own is part of the edge).
// - Pages never import a store, so a page shows only what a service let its caller see. A page
//   is a .tsx file whose name contains "admin" (admin.tsx, analytics-admin.tsx) or is
//   pages.tsx, and any file in an admin/ folder (the admin shell in ROOT/admin/, or a
//   domain's admin/ folder) except the browser scripts under admin/client/.
// Each violation is printed as file → import.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
if (process.argv.length > 3 || !existsSync(root) || !statSync(root).isDirectory()) {
  console.error('usage: node scripts/check-cycles.mjs [ROOT]   (ROOT: a folder, default src)');
  process.exit(2);
}

/** Every .ts/.tsx file under dir (declaration files excluded), sorted. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return sources(p);
      return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
    })
    .sort();
}

const KEYWORDS_BEFORE_EXPRESSION = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/**
 * The code with comments removed and every string or template literal replaced by a
 * placeholder: quoted strings become '#N' (N indexes `strings`), template literals keep their
 * `${...}` code and lose their text. Lengths are not kept; only the tokens matter.
 */
function scan(text, tsx) {
  const strings = [];
  let out = '';
  let i = 0;
  let last = ''; // the last significant token, to tell a regular expression from a division
  const braces = []; // for each open '{': true if it opened a template's ${ }
  const templateText = () => {
    // From just after '`' or '}', through the closing '`' or the next '${'.
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') { i += 2; continue; }
      if (c === '`') { i++; out += '`'; last = '`'; return; }
      if (c === '$' && text[i + 1] === '{') { i += 2; out += '${'; braces.push(true); last = '{'; return; }
      i++;
    }
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c && text[j] !== '\n') {
        if (text[j] === '\\') { value += text[j + 1] ?? ''; j += 2; continue; }
        value += text[j++];
      }
      i = j + 1;
      out += `'#${strings.length}'`;
      strings.push(value);
      last = "'";
      continue;
    }
    if (c === '`') {
      i++;
      out += '`';
      templateText();
      continue;
    }
    if (c === '{') { braces.push(false); out += c; last = c; i++; continue; }
    if (c === '}') {
      i++;
      if (braces.pop()) { out += '}'; templateText(); continue; }
      out += c;
      last = c;
      continue;
    }
    if (c === '/') {
      const regexAllowed = last === '' || /^[(,=:[!&|?{};+\-*%<>~^]$/.test(last) || KEYWORDS_BEFORE_EXPRESSION.has(last);
      if (regexAllowed && !tsx) {
        let j = i + 1;
        let inClass = false;
        while (j < text.length && text[j] !== '\n') {
          const d = text[j];
          if (d === '\\') { j += 2; continue; }
          if (d === '[') inClass = true;
          else if (d === ']') inClass = false;
          else if (d === '/' && !inClass) break;
          j++;
        }
        i = j + 1;
        while (i < text.length && /[a-z]/i.test(text[i])) i++;
        out += ' /re/ ';
        last = 'regex';
        continue;
      }
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i;
      while (j < text.length && /[\w$]/.test(text[j])) j++;
      last = text.slice(i, j);
      out += last;
      i = j;
      continue;
    }
    if (!/\s/.test(c)) last = c;
    out += c;
    i++;
  }
  return { code: out, strings };
}

/** The imports of one file: [{ specifier, typeOnly }]. */
function importsOf(text, tsx) {
  const { code, strings } = scan(text, tsx);
  const found = [];
  const str = (placeholder) => strings[Number(placeholder)];
  // Static imports and re-exports start a statement: at the start of the code, or after ; } or a line break.
  const statement = /(?:^|[;}\n])\s*(import|export)\b(\s+type\b)?([^;'`=()]*?)\bfrom\s*'#(\d+)'/g;
  for (const m of code.matchAll(statement)) {
    const [, , typeKeyword, clause, n] = m;
    // `import type from './x'` and `import type, { a } from './x'` import a default named "type".
    let typeOnly = Boolean(typeKeyword) && clause.trim() !== '' && !clause.trim().startsWith(',');
    const named = /^\s*\{([^}]*)\}\s*$/.exec(clause);
    if (!typeOnly && named) {
      const specifiers = named[1].split(',').map((s) => s.trim()).filter(Boolean);
      typeOnly = specifiers.length > 0 && specifiers.every((s) => /^type\s+[\w$]/.test(s));
    }
    found.push({ specifier: str(n), typeOnly });
  }
  // Side-effect imports: import './x.ts'.
  for (const m of code.matchAll(/(?:^|[;}\n])\s*import\s*'#(\d+)'/g)) found.push({ specifier: str(m[1]), typeOnly: false });
  // import('...'): a type when after typeof, or followed by .Name (not .then/.catch/.finally).
  for (const m of code.matchAll(/(\btypeof\s*)?\bimport\s*\(\s*'#(\d+)'\s*\)(\s*\.\s*([\w$]+))?/g)) {
    const typeOnly = Boolean(m[1]) || (m[4] !== undefined && !['then', 'catch', 'finally'].includes(m[4]));
    found.push({ specifier: str(m[2]), typeOnly });
  }
  return found;
}

/** The file under root that a relative specifier names, or undefined. */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base];
  if (/\.[cm]?js$/.test(base)) candidates.push(base.replace(/\.([cm]?)js$/, '.$1ts'), base.replace(/\.js$/, '.tsx'));
  candidates.push(`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx'));
  const file = candidates.find((p) => /\.tsx?$/.test(p) && existsSync(p) && statSync(p).isFile());
  return file && !relative(root, file).startsWith('..') ? file : undefined;
}

const name = (file) => relative(root, file).split(sep).join('/');
const unitOf = (file) => name(file).split('/')[0];

// fileEdges: file → file it imports → true when only type-only imports make that edge.
// unitEdges: unit → unit → ['a.ts → b.ts', ...], from value imports only.
const fileEdges = new Map();
const unitEdges = new Map();
for (const file of sources(root)) {
  const text = readFileSync(file, 'utf8');
  const targets = new Map();
  for (const { specifier, typeOnly } of importsOf(text, file.endsWith('.tsx'))) {
    const target = resolveImport(file, specifier);
    if (!target) continue;
    targets.set(name(target), (targets.get(name(target)) ?? true) && typeOnly);
    const [a, b] = [unitOf(file), unitOf(target)];
    if (a === b || typeOnly) continue;
    if (!unitEdges.has(a)) unitEdges.set(a, new Map());
    const via = unitEdges.get(a);
    if (!via.has(b)) via.set(b, new Set());
    via.get(b).add(`${name(file)} → ${name(target)}`);
  }
  fileEdges.set(name(file), targets);
}

const isServiceOrStore = (file) => /(?:^|\/|-)(?:service|store)\.tsx?$/.test(file) && !file.startsWith('http/');
const isStore = (file) => /(?:^|\/|-)store\.tsx?$/.test(file);
const isPage = (file) => /(?:^|\/)[^/]*admin[^/]*\.tsx$|(?:^|\/)pages\.tsx$/.test(file) || (/(?:^|\/)admin\//.test(file) && !/(?:^|\/)admin\/client\//.test(file));

/** The imports that break the layer rule, as 'file → import', sorted. */
function layerViolations() {
  const out = [];
  for (const [file, targets] of fileEdges) {
    for (const target of targets.keys()) {
      if ((isServiceOrStore(file) && target.startsWith('http/')) || (isPage(file) && isStore(target))) out.push(`${file} → ${target}`);
    }
  }
  return out.sort();
}

/** Strongly connected components with a cycle (Tarjan), each sorted, in a stable order. */
function cyclicComponents(graph) {
  const index = new Map(), low = new Map(), onStack = new Set(), stack = [], out = [];
  let counter = 0;
  const visit = (v) => {
    index.set(v, counter); low.set(v, counter); counter++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); component.push(w); } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

/** A shortest path from `from` to `to` inside `inside` (breadth-first), as its list of nodes. */
function shortestPath(graph, inside, from, to) {
  const previous = new Map([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const v = queue.shift();
    for (const w of [...(graph.get(v)?.keys() ?? [])].sort()) {
      if (!inside.has(w) || previous.has(w)) continue;
      previous.set(w, v);
      if (w === to) {
        const path = [];
        for (let u = w; u !== null; u = previous.get(u)) path.unshift(u);
        return path;
      }
      queue.push(w);
    }
  }
  return [from];
}

/** For each edge a → b of a component, a shortest cycle through it, without repeats; each cycle as [a, b, ...]. */
function cyclesIn(component, graph) {
  const inside = new Set(component);
  const seen = new Set();
  const cycles = [];
  for (const a of component) {
    for (const b of [...graph.get(a).keys()].sort()) {
      if (!inside.has(b)) continue;
      const cycle = a === b ? [a] : [a, ...shortestPath(graph, inside, b, a).slice(0, -1)];
      // The same cycle reached from another edge: compare rotations that start at the smallest member.
      const first = cycle.indexOf([...cycle].sort()[0]);
      const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
      const key = rotated.join('\n');
      if (seen.has(key)) continue;
      seen.add(key);
      cycles.push(rotated);
    }
  }
  return cycles;
}

const unitGraph = new Map([...unitEdges].map(([a, via]) => [a, new Map([...via.keys()].map((b) => [b, false]))]));
const folderGroups = cyclicComponents(unitGraph);
const fileGroups = cyclicComponents(fileEdges);
const shown = relative(process.cwd(), root).startsWith('..') ? root : relative(process.cwd(), root) || '.';
const chain = (cycle, graph) => cycle.map((v, k) => (k === 0 ? v : `${graph.get(cycle[k - 1]).get(v) ? '→(type)' : '→'} ${v}`)).join(' ')
  + ` ${graph.get(cycle.at(-1)).get(cycle[0]) ? '→(type)' : '→'} ${cycle[0]}`;

if (folderGroups.length) {
  console.log(`Folder-level import cycles in ${shown}/ (between its top-level folders; type-only imports not counted):`);
  for (const group of folderGroups) {
    console.log(`  ${group.join(', ')}:`);
    for (const cycle of cyclesIn(group, unitGraph)) {
      console.log(`    ${chain(cycle, unitGraph)}`);
      cycle.forEach((a, k) => {
        const b = cycle[(k + 1) % cycle.length];
        const via = [...unitEdges.get(a).get(b)].sort();
        console.log(`        ${a} → ${b}: ${via.slice(0, 4).join(', ')}${via.length > 4 ? `, and ${via.length - 4} more` : ''}`);
      });
    }
  }
}
if (fileGroups.length) {
  console.log(`File-level import cycles in ${shown}/ (type-only imports counted, marked →(type)):`);
  for (const group of fileGroups) {
    console.log(`  ${group.join(', ')}:`);
    for (const cycle of cyclesIn(group, fileEdges)) console.log(`    ${chain(cycle, fileEdges)}`);
  }
}
const violations = layerViolations();
if (violations.length) {
  console.log(`Layer rule broken in ${shown}/ (services and stores never import http/; pages never import a store):`);
  for (const v of violations) console.log(`  ${v}`);
}
if (folderGroups.length || fileGroups.length) {
  console.log(`${folderGroups.length} folder group(s) and ${fileGroups.length} file group(s) in import cycles; break an import in each printed chain.`);
}
if (violations.length) console.log(`${violations.length} import(s) across a layer the wrong way; move what they bring to its own layer, or hand it in.`);
if (folderGroups.length || fileGroups.length || violations.length) process.exit(1);
console.log(`No import cycles and no layer violations in ${shown}/ (${fileEdges.size} files).`);
