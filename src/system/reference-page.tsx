// /api/docs: the OpenAPI document as a page a person reads: sections, then each route with who
// may call it, its parameters and its body fields. Server-rendered, no scripts.
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { JSX } from 'hono/jsx/jsx-runtime';

type Json = Record<string, unknown>;

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1d2330;--muted:#5b6474;--accent:#2456d3;--border:#d9dde5}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--card:#1d2129;--fg:#e7eaf0;--muted:#a3abb9;--accent:#7ea2ff;--border:#353b47}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.wrap{max-width:60rem;margin:0 auto;padding:2rem 1rem}a{color:var(--accent)}h1{font-size:1.6rem;margin:0 0 .5rem}
h2{font-size:1.25rem;margin:2rem 0 .75rem;text-transform:capitalize}nav ul{columns:12rem;padding-left:1.2rem}
section.op{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:1rem 1.2rem;margin:.75rem 0}
h3{font-size:1rem;margin:0 0 .3rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
.m{display:inline-block;min-width:4.2rem;font-weight:700}.muted{color:var(--muted)}
table{border-collapse:collapse;width:100%;margin:.4rem 0;font-size:.9rem}th,td{text-align:left;padding:.25rem .5rem;border-top:1px solid var(--border);vertical-align:top}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88em}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}`;

/** Text whose `backticked` parts are code, as the OpenAPI descriptions write them. */
function Prose({ text }: { text: string }): JSX.Element {
  return <>{text.split('`').map((part, i) => (i % 2 ? <code>{part}</code> : part))}</>;
}

/** A short description of a JSON Schema's type and rules. */
function typeOf(s: Json | undefined): string {
  if (!s) return 'any';
  if (s.const !== undefined) return `"${String(s.const)}"`;
  if (Array.isArray(s.enum)) return `one of ${(s.enum as unknown[]).map(String).join(', ')}`;
  if (s.type === 'array') return `array of ${typeOf(s.items as Json | undefined)}`;
  if (Array.isArray(s.anyOf)) return (s.anyOf as Json[]).map(typeOf).join(' or ');
  const rules: string[] = [];
  if (s.maxLength !== undefined) rules.push(`at most ${String(s.maxLength)} bytes`);
  if (s.minimum !== undefined) rules.push(`≥ ${String(s.minimum)}`);
  const type = Array.isArray(s.type) ? s.type.join(' or ') : typeof s.type === 'string' ? s.type : 'any';
  return rules.length ? `${type} (${rules.join(', ')})` : type;
}

function resolve(s: Json | undefined, schemas: Record<string, Json>): Json | undefined {
  const ref = s?.$ref;
  return typeof ref === 'string' ? schemas[ref.split('/').pop()!] : s;
}

function Fields({ schema, schemas }: { schema: Json | undefined; schemas: Record<string, Json> }): JSX.Element | null {
  const props = (resolve(schema, schemas)?.properties ?? {}) as Record<string, Json>;
  const names = Object.keys(props);
  if (!names.length) return null;
  return (
    <table>
      <thead><tr><th scope="col">field</th><th scope="col">type</th></tr></thead>
      <tbody>{names.map((n) => <tr><td><code>{n}</code></td><td>{typeOf(props[n])}</td></tr>)}</tbody>
    </table>
  );
}

function Operation({ method, path, op, schemas }: { method: string; path: string; op: Json; schemas: Record<string, Json> }): JSX.Element {
  const params = (op.parameters ?? []) as Json[];
  const body = op.requestBody as { content: Record<string, { schema?: Json }> } | undefined;
  const bodyTypes = body ? Object.keys(body.content) : [];
  return (
    <section class="op" id={String(op.operationId)}>
      <h3><span class="m">{method.toUpperCase()}</span>{path}</h3>
      <p><Prose text={String(op.summary ?? '')} /><br /><span class="muted"><Prose text={String(op.description ?? '')} /></span></p>
      {params.length ? (
        <table>
          <thead><tr><th scope="col">parameter</th><th scope="col">in</th><th scope="col">type</th></tr></thead>
          <tbody>{params.map((p) => <tr><td><code>{String(p.name)}</code></td><td>{String(p.in)}</td><td>{typeOf(p.schema as Json)}</td></tr>)}</tbody>
        </table>
      ) : null}
      {body ? (
        <>
          <p class="muted">Body: {bodyTypes.join(', ')}</p>
          <Fields schema={body.content[bodyTypes[0]]?.schema} schemas={schemas} />
        </>
      ) : null}
    </section>
  );
}

export function ReferencePage({ doc }: { doc: Json }): JSX.Element {
  const info = doc.info as Json;
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const schemas = ((doc.components as Json).schemas ?? {}) as Record<string, Json>;
  const bySection = new Map<string, { method: string; path: string; op: Json }[]>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = ((op.tags as string[]) ?? ['other'])[0];
      if (!bySection.has(tag)) bySection.set(tag, []);
      bySection.get(tag)!.push({ method, path, op });
    }
  }
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{String(info.title)} reference</title>
        <style>{raw(STYLE)}</style>
      </head>
      <body>
        <div class="wrap">
          <h1>{String(info.title)} <span class="muted">{String(info.version)}</span></h1>
          <p><Prose text={String(info.description)} /></p>
          <p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>
          <nav aria-label="Sections">
            <ul>{[...bySection.keys()].map((tag) => <li><a href={`#section-${tag}`}>{tag}</a></li>)}</ul>
          </nav>
          <main>
            {[...bySection.entries()].map(([tag, ops]) => (
              <>
                <h2 id={`section-${tag}`}>{tag}</h2>
                {ops.map((o) => <Operation method={o.method} path={o.path} op={o.op} schemas={schemas} />)}
              </>
            ))}
          </main>
        </div>
      </body>
    </html>
  );
}

export function sendReference(c: Context, doc: Json): Response {
  c.header('X-Frame-Options', 'DENY');
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  return c.html(`<!doctype html>${String(<ReferencePage doc={doc} />)}`);
}
