// A listmonk database for the migration tests, written from listmonk's documented tables:
// the v4 layout (users and roles arrive; API tokens stored as they are) and the v6.2 one
// (list status, TOTP columns, template and campaign body_source, campaign attribs, hashed
// API tokens). The data exercises every column the migration carries over.
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type pg from 'pg';

export type ListmonkVersion = 'v2.0.0' | 'v4.1.0' | 'v6.2.0';

/** The tables (without data); `omit` leaves tables out, for the damaged-schema test. */
export function listmonkSchema(version: ListmonkVersion, omit: string[] = []): string {
  const v6 = version === 'v6.2.0';
  // v2.0: no users or roles (one admin in the config file), and the columns later versions added are absent.
  const v2 = version === 'v2.0.0';
  const tables: Record<string, string> = {
    subscribers: `id SERIAL PRIMARY KEY, uuid UUID NOT NULL UNIQUE, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
      attribs JSONB NOT NULL DEFAULT '{}', status subscriber_status NOT NULL DEFAULT 'enabled',
      created_at TIMESTAMPTZ DEFAULT NOW(), updated_at TIMESTAMPTZ DEFAULT NOW()`,
    lists: `id SERIAL PRIMARY KEY, uuid UUID NOT NULL UNIQUE, name TEXT NOT NULL, type list_type NOT NULL,
      optin list_optin NOT NULL DEFAULT 'single', ${v6 ? "status list_status NOT NULL DEFAULT 'active'," : ''}
      tags VARCHAR(100)[], ${v2 ? '' : "description TEXT NOT NULL DEFAULT '',"} created_at TIMESTAMPTZ DEFAULT NOW(), updated_at TIMESTAMPTZ DEFAULT NOW()`,
    subscriber_lists: `subscriber_id INTEGER REFERENCES subscribers (id) ON DELETE CASCADE, list_id INTEGER REFERENCES lists (id) ON DELETE CASCADE,
      ${v2 ? '' : "meta JSONB NOT NULL DEFAULT '{}',"} status subscription_status NOT NULL DEFAULT 'unconfirmed',
      created_at TIMESTAMPTZ DEFAULT NOW(), updated_at TIMESTAMPTZ DEFAULT NOW(), PRIMARY KEY (subscriber_id, list_id)`,
    templates: `id SERIAL PRIMARY KEY, name TEXT NOT NULL, ${v2 ? '' : "type template_type NOT NULL DEFAULT 'campaign', subject TEXT NOT NULL,"}
      body TEXT NOT NULL, ${v6 ? 'body_source TEXT NULL,' : ''} is_default BOOLEAN NOT NULL DEFAULT false,
      created_at TIMESTAMPTZ DEFAULT NOW(), updated_at TIMESTAMPTZ DEFAULT NOW()`,
    campaigns: `id SERIAL PRIMARY KEY, uuid UUID NOT NULL UNIQUE, name TEXT NOT NULL, subject TEXT NOT NULL, from_email TEXT NOT NULL,
      body TEXT NOT NULL, ${v6 ? 'body_source TEXT NULL,' : ''} altbody TEXT NULL, content_type content_type NOT NULL DEFAULT 'richtext',
      send_at TIMESTAMPTZ, ${v2 ? '' : "headers JSONB NOT NULL DEFAULT '[]',"} ${v6 ? "attribs JSONB NOT NULL DEFAULT '{}'," : ''}
      status campaign_status NOT NULL DEFAULT 'draft', tags VARCHAR(100)[], type campaign_type DEFAULT 'regular', messenger TEXT NOT NULL,
      template_id INTEGER REFERENCES templates (id) ON DELETE SET NULL, to_send INT NOT NULL DEFAULT 0, sent INT NOT NULL DEFAULT 0,
      max_subscriber_id INT NOT NULL DEFAULT 0, last_subscriber_id INT NOT NULL DEFAULT 0, ${v2 ? '' : `archive BOOLEAN NOT NULL DEFAULT false,
      archive_slug TEXT NULL UNIQUE, archive_template_id INTEGER REFERENCES templates (id) ON DELETE SET NULL,
      archive_meta JSONB NOT NULL DEFAULT '{}',`} started_at TIMESTAMPTZ, created_at TIMESTAMPTZ DEFAULT NOW(), updated_at TIMESTAMPTZ DEFAULT NOW()`,
    campaign_lists: `id BIGSERIAL PRIMARY KEY, campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
      list_id INTEGER NULL REFERENCES lists (id) ON DELETE SET NULL, list_name TEXT NOT NULL DEFAULT ''`,
    campaign_views: `id BIGSERIAL PRIMARY KEY, campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
      subscriber_id INTEGER NULL REFERENCES subscribers (id) ON DELETE SET NULL, created_at TIMESTAMPTZ DEFAULT NOW()`,
    media: `id SERIAL PRIMARY KEY, uuid UUID NOT NULL UNIQUE, provider TEXT NOT NULL DEFAULT '', filename TEXT NOT NULL,
      ${v2 ? '' : "content_type TEXT NOT NULL DEFAULT 'application/octet-stream',"} thumb TEXT NOT NULL, ${v2 ? '' : "meta JSONB NOT NULL DEFAULT '{}',"} created_at TIMESTAMPTZ DEFAULT NOW()`,
    campaign_media: `campaign_id INTEGER REFERENCES campaigns (id) ON DELETE CASCADE, media_id INTEGER NULL REFERENCES media (id) ON DELETE SET NULL,
      filename TEXT NOT NULL DEFAULT ''`,
    links: 'id SERIAL PRIMARY KEY, uuid UUID NOT NULL UNIQUE, url TEXT NOT NULL UNIQUE, created_at TIMESTAMPTZ DEFAULT NOW()',
    link_clicks: `id BIGSERIAL PRIMARY KEY, campaign_id INTEGER NULL REFERENCES campaigns (id) ON DELETE CASCADE,
      link_id INTEGER NOT NULL REFERENCES links (id) ON DELETE CASCADE, subscriber_id INTEGER NULL REFERENCES subscribers (id) ON DELETE SET NULL,
      created_at TIMESTAMPTZ DEFAULT NOW()`,
    settings: "key TEXT NOT NULL UNIQUE, value JSONB NOT NULL DEFAULT '{}', updated_at TIMESTAMPTZ DEFAULT NOW()",
    bounces: `id SERIAL PRIMARY KEY, subscriber_id INTEGER NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
      campaign_id INTEGER NULL REFERENCES campaigns (id) ON DELETE SET NULL, type bounce_type NOT NULL DEFAULT 'hard',
      source TEXT NOT NULL DEFAULT '', meta JSONB NOT NULL DEFAULT '{}', created_at TIMESTAMPTZ DEFAULT NOW()`,
    roles: `id SERIAL PRIMARY KEY, type role_type NOT NULL DEFAULT 'user', parent_id INTEGER NULL REFERENCES roles (id) ON DELETE CASCADE,
      list_id INTEGER NULL REFERENCES lists (id) ON DELETE CASCADE, permissions TEXT[] NOT NULL DEFAULT '{}', name TEXT NULL,
      created_at TIMESTAMPTZ DEFAULT NOW(), updated_at TIMESTAMPTZ DEFAULT NOW()`,
    users: `id SERIAL PRIMARY KEY, username TEXT NOT NULL UNIQUE, password_login BOOLEAN NOT NULL DEFAULT false, password TEXT NULL,
      email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, avatar TEXT NULL, type user_type NOT NULL DEFAULT 'user',
      user_role_id INTEGER NOT NULL REFERENCES roles (id) ON DELETE RESTRICT, list_role_id INTEGER NULL REFERENCES roles (id) ON DELETE CASCADE,
      status user_status NOT NULL DEFAULT 'disabled', ${v6 ? "twofa_type twofa_type NOT NULL DEFAULT 'none', twofa_key TEXT NULL," : ''}
      loggedin_at TIMESTAMPTZ NULL, created_at TIMESTAMPTZ DEFAULT NOW(), updated_at TIMESTAMPTZ DEFAULT NOW()`,
  };
  const enums: Record<string, string[]> = {
    list_type: ['public', 'private', 'temporary'], list_optin: ['single', 'double'], list_status: ['active', 'archived'],
    subscriber_status: ['enabled', 'disabled', 'blocklisted'], subscription_status: ['unconfirmed', 'confirmed', 'unsubscribed'],
    campaign_status: ['draft', 'running', 'scheduled', 'paused', 'cancelled', 'finished'], campaign_type: ['regular', 'optin'],
    content_type: ['richtext', 'html', 'plain', 'markdown', 'visual'], bounce_type: ['soft', 'hard', 'complaint'],
    template_type: ['campaign', 'campaign_visual', 'tx'], user_type: ['user', 'api'], user_status: ['enabled', 'disabled'],
    role_type: ['user', 'list'], twofa_type: ['none', 'totp'],
  };
  return [
    ...Object.entries(enums).map(([name, values]) => `CREATE TYPE ${name} AS ENUM (${values.map((v) => `'${v}'`).join(', ')});`),
    ...Object.entries(tables).filter(([name]) => !omit.includes(name) && !(v2 && ['campaign_media', 'roles', 'users'].includes(name))).map(([name, cols]) => `CREATE TABLE ${name} (${cols});`),
  ].join('\n');
}

/** What the tests need to know about the data they did not read back from listmonk. */
export interface ListmonkFacts {
  apiUser: string;
  apiToken: string;
  loginUser: string;
  loginPassword: string;
  totpSecret: string;
}

export const LOGIN_PASSWORD = 'ölsardinen-passwort-1';
export const API_TOKEN = 'Xy7kP2mQ9rT4vW8zA1bC3dE5fG6hJ0nL';
export const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** Fills a database created with listmonkSchema(version). */
export async function fillListmonk(c: pg.Client, version: ListmonkVersion): Promise<ListmonkFacts> {
  const v6 = version === 'v6.2.0';
  const q = (sql: string, params: unknown[] = []) => c.query(sql, params);
  await q(`INSERT INTO settings (key, value) VALUES
    ('migrations', $1), ('app.site_name', '"Die Zeitung — 日本語"'), ('app.root_url', '"https://news.example.org"'),
    ('app.from_email', '"Zeitung <news@example.org>"'), ('app.concurrency', '7'), ('privacy.individual_tracking', 'true'),
    ('smtp', '[{"enabled":true,"host":"smtp.example.org","port":587,"auth_protocol":"login","username":"mailer","password":"smtp-secret-9","hello_hostname":"","max_conns":4,"idle_timeout":"15s","wait_timeout":"5s","max_msg_retries":2,"msg_retry_delay":"10ms","tls_type":"STARTTLS","tls_skip_verify":false,"email_headers":[],"from_addresses":[]}]'),
    ('security.cors_origins', '["https://cors.example.org"]'), ('app.some_future_setting', '{"x": 1}'),
    ('security.oidc', '{"enabled": true, "provider_url": "https://id.example.org", "client_id": "zeitung", "client_secret": "oidc-secret-3"}')
    ${v6 ? `, ('security.oidc.provider_name', '"Keycloak"')` : ''}`, [JSON.stringify(['v2.0.0', version])]);

  // Lists: ids with a gap (3 was deleted in listmonk).
  await q(`INSERT INTO lists (id, uuid, name, type, optin, ${v6 ? 'status,' : ''} tags, description, created_at, updated_at) VALUES
    (1, 'b6a3e7a1-0000-4000-8000-000000000001', 'Leser — Ärzte', 'public', 'double', ${v6 ? "'active'," : ''} '{news,"täglich"}', 'Die Ärzte-Liste ✓', '2021-03-04 05:06:07.123+00', '2022-01-02 03:04:05+00'),
    (2, 'b6a3e7a1-0000-4000-8000-000000000002', 'Intern', 'private', 'single', ${v6 ? "'archived'," : ''} NULL, '', '2021-03-05 00:00:00+00', '2021-03-05 00:00:00+00'),
    (4, 'b6a3e7a1-0000-4000-8000-000000000004', 'Kurzzeit', 'temporary', 'single', ${v6 ? "'active'," : ''} '{}', 'temporary list', '2021-03-06 00:00:00+00', '2021-03-06 00:00:00+00')`);
  await q("SELECT setval('lists_id_seq', 4)");

  await q(`INSERT INTO subscribers (id, uuid, email, name, attribs, status, created_at, updated_at) VALUES
    (1, 'a0000000-0000-4000-8000-000000000001', 'Anna.Müller@Example.org', 'Anna Müller 🌻', $1, 'enabled', '2020-01-02 03:04:05.678+00', '2023-04-05 06:07:08.9+00'),
    (2, 'a0000000-0000-4000-8000-000000000002', 'blocked@example.org', '山田 太郎', '{}', 'blocklisted', '2020-02-02 00:00:00+00', '2020-02-03 00:00:00+00'),
    (5, 'a0000000-0000-4000-8000-000000000005', 'gone@example.org', 'Gone', '{"n": -0.5}', 'disabled', '2020-03-02 00:00:00+00', '2020-03-03 00:00:00+00'),
    (6, 'a0000000-0000-4000-8000-000000000006', 'orphan@example.org', 'Orphan', '{}', 'enabled', '2020-03-02 00:00:00+00', '2020-03-03 00:00:00+00')`,
  [JSON.stringify({ city: 'Zürich', age: 42, ratio: 1.25, big: 12345678901234, ok: true, none: null, tags: ['a', 'ü'], nested: { deep: { list: [1, { x: 'y' }] } } })]);
  await q("SELECT setval('subscribers_id_seq', 6)");
  await q(`INSERT INTO subscriber_lists (subscriber_id, list_id, meta, status, created_at, updated_at) VALUES
    (1, 1, '{"optin_ip": "192.0.2.1", "confirmed_at": "2020-01-02T03:05:00Z"}', 'confirmed', '2020-01-02 03:04:05+00', '2020-01-02 03:05:00+00'),
    (1, 2, '{}', 'unconfirmed', '2020-01-03 00:00:00+00', '2020-01-03 00:00:00+00'),
    (2, 1, '{}', 'unsubscribed', '2020-02-02 00:00:00+00', '2020-02-05 00:00:00+00'),
    (5, 4, '{"source": "form"}', 'confirmed', '2020-03-02 00:00:00+00', '2020-03-02 00:00:00+00')`);

  await q(`INSERT INTO templates (id, name, type, subject, body, ${v6 ? 'body_source,' : ''} is_default, created_at, updated_at) VALUES
    (1, 'Standard', 'campaign', '', '<html>{{ template "content" . }}</html>', ${v6 ? 'NULL,' : ''} false, '2020-01-01 00:00:00+00', '2020-01-01 00:00:00+00'),
    (2, 'Hausstil ✉', 'campaign', '', '<div class="haus">{{ template "content" . }}</div>', ${v6 ? 'NULL,' : ''} true, '2020-01-01 00:00:00+00', '2020-01-01 00:00:00+00'),
    (3, 'Willkommen', 'tx', 'Hallo {{ .Subscriber.Name }}', '<p>Hallo</p>', ${v6 ? 'NULL,' : ''} false, '2020-01-01 00:00:00+00', '2020-01-01 00:00:00+00')`);
  await q("SELECT setval('templates_id_seq', 3)");

  await q(`INSERT INTO campaigns (id, uuid, name, subject, from_email, body, ${v6 ? 'body_source,' : ''} altbody, content_type, send_at, headers, ${v6 ? 'attribs,' : ''}
      status, tags, type, messenger, template_id, to_send, sent, max_subscriber_id, last_subscriber_id, archive, archive_slug, archive_template_id,
      archive_meta, started_at, created_at, updated_at) VALUES
    (1, 'c0000000-0000-4000-8000-000000000001', 'Frühling 🌷', 'Neues im März', 'Zeitung <news@example.org>', '<p>Hallo {{ .Subscriber.FirstName }}</p>',
      ${v6 ? 'NULL,' : ''} 'Hallo', 'richtext', '2021-03-10 09:00:00+00', '[{"X-Kampagne": "fruehling"}]', ${v6 ? '\'{"kind": "seasonal"}\',' : ''}
      'finished', '{saison,"ü"}', 'regular', 'email', 2, 3, 3, 6, 6, true, 'fruehling-2021', 2, '{"name": "Leser"}',
      '2021-03-10 09:00:01+00', '2021-03-01 00:00:00+00', '2021-03-10 10:00:00+00'),
    (2, 'c0000000-0000-4000-8000-000000000002', 'Laufend', 'Läuft gerade', 'news@example.org', '# Titel', ${v6 ? "'# Titel'," : ''} NULL, 'markdown',
      NULL, '[]', ${v6 ? "'{}'," : ''} 'running', NULL, 'regular', 'email', NULL, 100, 40, 6, 2, false, NULL, NULL, '{}',
      '2021-04-01 00:00:00+00', '2021-04-01 00:00:00+00', '2021-04-01 00:00:00+00')`);
  await q("SELECT setval('campaigns_id_seq', 2)");
  await q(`INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES (1, 1, 'Leser — Ärzte'), (1, NULL, 'Gelöschte Liste'), (2, 2, 'Intern')`);
  await q(`INSERT INTO links (id, uuid, url, created_at) VALUES
    (1, 'd0000000-0000-4000-8000-000000000001', 'https://example.org/ärger?x=1&y=2', '2021-03-10 09:00:00+00'),
    (2, 'd0000000-0000-4000-8000-000000000002', 'https://example.org/b', '2021-03-10 09:00:00+00')`);
  await q("SELECT setval('links_id_seq', 2)");
  await q(`INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES
    (1, 1, '2021-03-10 10:00:00+00'), (1, 1, '2021-03-11 10:00:00+00'), (1, NULL, '2021-03-11 11:00:00+00'), (2, 2, '2021-04-02 00:00:00+00')`);
  await q(`INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES
    (1, 1, 1, '2021-03-10 10:01:00+00'), (1, 2, 1, '2021-03-10 10:02:00+00'), (1, 1, NULL, '2021-03-12 00:00:00+00')`);
  await q(`INSERT INTO bounces (id, subscriber_id, campaign_id, type, source, meta, created_at) VALUES
    (1, 2, 1, 'hard', 'ses', '{"diagnostic": "550 unknown user"}', '2021-03-10 09:30:00+00'),
    (2, 5, NULL, 'soft', 'api', '{}', '2021-03-11 09:30:00+00')`);
  await q(`INSERT INTO media (id, uuid, provider, filename, content_type, thumb, meta, created_at) VALUES
    (1, 'e0000000-0000-4000-8000-000000000001', 'filesystem', 'logo.png', 'image/png', 'thumb_logo.png', '{"width": 10, "height": 10}', '2021-01-01 00:00:00+00'),
    (2, 'e0000000-0000-4000-8000-000000000002', 'filesystem', 'fehlt.pdf', 'application/pdf', '', '{}', '2021-01-02 00:00:00+00'),
    (3, 'e0000000-0000-4000-8000-000000000003', 's3', 'bucket-bild.jpg', 'image/jpeg', 'thumb_bucket-bild.jpg', '{}', '2021-01-03 00:00:00+00')`);
  await q("INSERT INTO campaign_media (campaign_id, media_id, filename) VALUES (1, 1, 'logo.png')");

  // Roles: the Super Admin (1), a user role (2), a list role (3) with its grants as child rows.
  await q(`INSERT INTO roles (id, type, parent_id, list_id, permissions, name) VALUES
    (1, 'user', NULL, NULL, '{subscribers:get,campaigns:get}', 'Super Admin'),
    (2, 'user', NULL, NULL, '{subscribers:get,campaigns:get,campaigns:manage,future:permission}', 'Redaktion'),
    (3, 'list', NULL, NULL, '{}', 'Leser-Verwalter'),
    (4, 'list', 3, 1, '{list:get,list:manage}', NULL),
    (5, 'list', 3, 2, '{list:get}', NULL)`);
  await q("SELECT setval('roles_id_seq', 5)");
  const loginHash = bcrypt.hashSync(LOGIN_PASSWORD, 10);
  // v6.2 stores the SHA-256 of API tokens; v4 the token itself.
  const storedToken = v6 ? createHash('sha256').update(API_TOKEN).digest('hex') : API_TOKEN;
  await q(`INSERT INTO users (id, username, password_login, password, email, name, avatar, type, user_role_id, list_role_id, status,
      ${v6 ? 'twofa_type, twofa_key,' : ''} loggedin_at, created_at, updated_at) VALUES
    (1, 'redakteurin', true, $1, 'Redaktion@Example.org', 'Rita Redakteurin', NULL, 'user', 2, 3, 'enabled', ${v6 ? "'none', NULL," : ''} '2023-01-01 00:00:00+00', '2020-01-01 00:00:00+00', '2020-01-01 00:00:00+00'),
    (2, 'skript', false, $2, 'skript@api', 'Skript', NULL, 'api', 1, NULL, 'enabled', ${v6 ? "'none', NULL," : ''} NULL, '2020-01-01 00:00:00+00', '2020-01-01 00:00:00+00')
    ${v6 ? `, (3, 'zweifaktor', true, $1, 'totp@example.org', 'Zwei Faktor', NULL, 'user', 1, NULL, 'enabled', 'totp', '${TOTP_SECRET}', NULL, '2020-01-01 00:00:00+00', '2020-01-01 00:00:00+00')` : ''}`,
  [loginHash, storedToken]);
  await q(`SELECT setval('users_id_seq', ${v6 ? 3 : 2})`);
  return { apiUser: 'skript', apiToken: API_TOKEN, loginUser: 'redakteurin', loginPassword: LOGIN_PASSWORD, totpSecret: TOTP_SECRET };
}

/**
 * Fills a database created with listmonkSchema('v2.0.0'): a listmonk never upgraded since
 * v2.0, whose settings keep the shapes of their time (SMTP tls_enabled, bounce.count and
 * bounce.action, the captcha keys of v2.4, an S3 expiry in days, the "jp" language code).
 */
export async function fillListmonkV2(c: pg.Client): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => c.query(sql, params);
  await q(`INSERT INTO settings (key, value) VALUES
    ('migrations', '["v2.0.0"]'), ('app.site_name', '"Altes Blatt"'), ('app.lang', '"jp"'),
    ('smtp', '[{"enabled":true,"host":"smtp.example.org","port":465,"auth_protocol":"plain","username":"alt","password":"alt-secret","hello_hostname":"","max_conns":2,"idle_timeout":"15s","wait_timeout":"5s","max_msg_retries":2,"tls_enabled":true,"tls_skip_verify":true,"email_headers":[]},
      {"enabled":false,"host":"localhost","port":25,"auth_protocol":"none","username":"","password":"","hello_hostname":"","max_conns":1,"idle_timeout":"15s","wait_timeout":"5s","max_msg_retries":0,"tls_enabled":false,"tls_skip_verify":false,"email_headers":[]}]'),
    ('bounce.count', '3'), ('bounce.action', '"delete"'),
    ('security.enable_captcha', 'true'), ('security.captcha_key', '"site-key-1"'), ('security.captcha_secret', '"captcha-secret-1"'),
    ('upload.s3.expiry', '"14d"')`);
  await q(`INSERT INTO lists (id, uuid, name, type, optin, tags, created_at, updated_at) VALUES
    (1, 'b6a3e7a1-0000-4000-8000-000000000001', 'Leser', 'public', 'single', '{alt}', '2019-03-04 05:06:07+00', '2019-03-04 05:06:07+00'),
    (2, 'b6a3e7a1-0000-4000-8000-000000000002', 'Intern', 'private', 'double', NULL, '2019-03-05 00:00:00+00', '2019-03-05 00:00:00+00')`);
  await q(`INSERT INTO subscribers (id, uuid, email, name, attribs, status, created_at, updated_at) VALUES
    (1, 'a0000000-0000-4000-8000-000000000001', 'Alt@Example.org', 'Alter Leser', $1, 'enabled', '2019-01-02 03:04:05+00', '2019-04-05 06:07:08+00'),
    (2, 'a0000000-0000-4000-8000-000000000002', 'zwei@example.org', 'Zwei', '{}', 'blocklisted', '2019-02-02 00:00:00+00', '2019-02-03 00:00:00+00')`,
  [JSON.stringify({ stadt: 'Köln', n: 7, x: { y: [1, 2.5] } })]);
  await q(`INSERT INTO subscriber_lists (subscriber_id, list_id, status, created_at, updated_at) VALUES
    (1, 1, 'confirmed', '2019-01-02 03:04:05+00', '2019-01-02 03:04:05+00'), (1, 2, 'unconfirmed', '2019-01-03 00:00:00+00', '2019-01-03 00:00:00+00'),
    (2, 1, 'unsubscribed', '2019-02-02 00:00:00+00', '2019-02-05 00:00:00+00')`);
  await q(`INSERT INTO templates (id, name, body, is_default) VALUES (1, 'Standard', '<html>{{ template "content" . }}</html>', true)`);
  await q(`INSERT INTO campaigns (id, uuid, name, subject, from_email, body, altbody, content_type, send_at, status, tags, type, messenger, template_id,
      to_send, sent, max_subscriber_id, last_subscriber_id, started_at, created_at, updated_at) VALUES
    (1, 'c0000000-0000-4000-8000-000000000001', 'Alte Ausgabe', 'Nummer 1', 'Altes Blatt <alt@example.org>', '<p>Hallo</p>', NULL, 'html', NULL,
      'finished', '{alt}', 'regular', 'email', 1, 2, 2, 2, 2, '2019-05-01 00:00:00+00', '2019-04-30 00:00:00+00', '2019-05-01 01:00:00+00')`);
  await q(`INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES (1, 1, 'Leser')`);
  await q(`INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES (1, 1, '2019-05-01 02:00:00+00'), (1, 2, '2019-05-01 03:00:00+00')`);
  await q(`INSERT INTO links (id, uuid, url) VALUES (1, 'd0000000-0000-4000-8000-000000000001', 'https://example.org/alt')`);
  await q(`INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES (1, 1, 1, '2019-05-01 02:01:00+00')`);
  await q(`INSERT INTO bounces (id, subscriber_id, campaign_id, type, source, meta) VALUES (1, 2, 1, 'hard', 'api', '{}')`);
  await q(`INSERT INTO media (id, uuid, provider, filename, thumb) VALUES (1, 'e0000000-0000-4000-8000-000000000001', 'filesystem', 'alt.png', 'thumb_alt.png')`);
}
