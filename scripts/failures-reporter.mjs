// A node:test reporter that collects the failing tests, so the runner can end the output with
// their names: CI shows only the tail of a long run, and "fail 2" alone does not say which.
export default async function* failures(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A failing suite repeats its failing tests' errors; list the tests themselves.
    if (details?.type === 'suite') continue;
    const error = details?.error?.cause ?? details?.error;
    const message = String(error?.message ?? error ?? '').split('\n').slice(0, 6).join('\n    ');
    failed.push(`✖ ${file ?? '?'}: ${name}\n    ${message}`);
  }
  if (failed.length) yield `\n# failing tests (${failed.length}):\n${failed.join('\n')}\n`;
}
