// GET/PUT /api/settings, PUT /api/settings/{key}, POST /api/settings/smtp/test.
import type { Hono } from 'hono';
import type { Services } from '../services.ts';
import { readJson, readJsonValue } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { badRequest } from '../http/errors.ts';
import type { AppEnv } from '../http/types.ts';
import { reqString } from '../http/validate.ts';
import { sendSmtpTest, type SmtpServerSettings } from '../mail/smtp.ts';
import { smtpDefaults } from './defaults.ts';

export function registerSettingsRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const { guard, settings } = ctx;

  api.get('/settings', guard('settings:get'), (c) => ok(c, settings.masked()));

  api.put('/settings', guard('settings:manage'), async (c) => {
    settings.update(await readJson(c));
    ctx.reload();
    ctx.log.info(`settings updated by ${c.get('user').username}`);
    return ok(c, true);
  });

  api.put('/settings/:key', guard('settings:manage'), async (c) => {
    settings.updateKey(c.req.param('key'), await readJsonValue(c));
    ctx.reload();
    ctx.log.info(`setting ${c.req.param('key')} updated by ${c.get('user').username}`);
    return ok(c, true);
  });

  api.post('/settings/smtp/test', guard('settings:manage'), async (c) => {
    const body = await readJson(c);
    const to = reqString(body, 'email');
    const server = { ...smtpDefaults({}), ...body } as unknown as SmtpServerSettings;
    if (!server.host || typeof server.port !== 'number') throw badRequest('"host" and "port" are required');
    if (!['none', 'plain', 'login', 'cram'].includes(server.auth_protocol)) throw badRequest(`invalid "auth_protocol": ${server.auth_protocol}`);
    if (!['none', 'STARTTLS', 'TLS'].includes(server.tls_type)) throw badRequest(`invalid "tls_type": ${server.tls_type}`);
    // A masked or empty password means "the stored one" for the server with this uuid.
    if (!server.password || /^•+$/.test(server.password)) {
      const stored = settings.get<SmtpServerSettings[]>('smtp').find((s) => s.uuid && s.uuid === server.uuid);
      server.password = stored?.password ?? '';
    }
    try {
      await sendSmtpTest(server, settings.str('app.from_email'), to, settings.str('app.site_name'));
    } catch (e) {
      throw badRequest(`SMTP test failed: ${(e as Error).message}`);
    }
    ctx.log.info(`SMTP test message sent through ${server.host}:${server.port} to ${to}`);
    return ok(c, true);
  });
}
