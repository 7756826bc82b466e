import { test } from 'node:test';
import { startTestServer } from './helpers/server.ts';
test('repro', async () => {
  const t = await startTestServer();
  const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  for (const f of ['before_date', 'x']) for (const d of [deepArray(20000), deepObject(20000)]) {
    const res = await t.request('DELETE', '/api/maintenance/subscriptions/unconfirmed', undefined, { raw: `{"${f}":${d}}`, headers: { 'content-type': 'application/json' } });
    console.log(f, d.slice(0, 5), res.status, res.text.slice(0, 200));
  }
  await t.stop();
});
