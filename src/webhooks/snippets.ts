// The receiver's side of a webhook, as code to copy: how to verify a delivery's Standard Webhooks
// signature in Node, Python and PHP, by hand with HMAC-SHA256 (no library to install). Shown
// where a secret is shown (a new webhook, a rotated secret). Each `verify` part defines one
// function a test runs against signed deliveries (test/webhooks/snippets.test.ts); `usage` shows
// it in a common web framework.
//
// What each checks, as the specification says: the timestamp is within five minutes (a replayed
// delivery fails), and one of the space-separated `v1,<base64>` signatures is the HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>" under the secret's bytes (base64 after `whsec_`),
// compared in constant time. Two signatures arrive while a rotated secret still signs.

export interface VerifySnippet {
  lang: 'node' | 'python' | 'php';
  /** The tab's name. */
  label: string;
  /** Defines verifyWebhook / verify_webhook: (raw body, headers, secret) → the parsed payload, or throws. */
  verify: string;
  usage: string;
}

/** Where the snippets read the secret from: the receiver's environment, never its code. */
export const SECRET_ENV = 'LISTMGR_WEBHOOK_SECRET';

const node: VerifySnippet = {
  lang: 'node',
  label: 'Node.js',
  verify: `// Node.js 18+: verify a listmgr webhook (Standard Webhooks) before trusting it.
const crypto = require('node:crypto');

function verifyWebhook(rawBody, headers, secret) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new Error('not a signed webhook');
  // Refuse old or future deliveries: a replayed one fails here.
  if (!/^\\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 5 * 60) {
    throw new Error('timestamp too old or too new');
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(\`\${id}.\${timestamp}.\`).update(rawBody).digest();
  // While a rotated secret still signs there are two signatures: one matching is enough.
  const valid = signatures.split(' ').some((signature) => {
    const [version, value] = signature.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!valid) throw new Error('bad signature');
  return JSON.parse(String(rawBody));
}
`,
  usage: `
// With Express: take the body as raw bytes, exactly as sent, or the signature cannot match.
const express = require('express');
const app = express();
app.post('/listmgr-webhook', express.raw({ type: 'application/json' }), (req, res) => {
  let event;
  try {
    event = verifyWebhook(req.body, req.headers, process.env.${SECRET_ENV});
  } catch {
    return res.sendStatus(400);
  }
  // The same webhook-id arrives again on a retry: skip one already handled.
  console.log(event.type, event.data);
  res.sendStatus(204);
});
app.listen(8080);
`,
};

const python: VerifySnippet = {
  lang: 'python',
  label: 'Python',
  verify: `# Python 3.9+: verify a listmgr webhook (Standard Webhooks) before trusting it.
import base64, hashlib, hmac, json, time

def verify_webhook(raw_body: bytes, headers, secret: str):
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise ValueError("not a signed webhook")
    # Refuse old or future deliveries: a replayed one fails here.
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > 5 * 60:
        raise ValueError("timestamp too old or too new")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    # While a rotated secret still signs there are two signatures: one matching is enough.
    if not any(s.startswith("v1,") and hmac.compare_digest(s[3:], expected) for s in signatures.split(" ")):
        raise ValueError("bad signature")
    return json.loads(raw_body)
`,
  usage: `
# With Flask: request.get_data() is the body exactly as sent.
import os
from flask import Flask, request

app = Flask(__name__)

@app.post("/listmgr-webhook")
def listmgr_webhook():
    try:
        event = verify_webhook(request.get_data(), request.headers, os.environ["${SECRET_ENV}"])
    except ValueError:
        return "", 400
    # The same webhook-id arrives again on a retry: skip one already handled.
    print(event["type"], event["data"])
    return "", 204
`,
};

const php: VerifySnippet = {
  lang: 'php',
  label: 'PHP',
  verify: `<?php
// PHP 7.4+: verify a listmgr webhook (Standard Webhooks) before trusting it.
function verify_webhook(string $rawBody, array $headers, string $secret): array
{
    $headers = array_change_key_case($headers, CASE_LOWER);
    $id = $headers['webhook-id'] ?? '';
    $timestamp = $headers['webhook-timestamp'] ?? '';
    $signatures = $headers['webhook-signature'] ?? '';
    if ($id === '' || $signatures === '') {
        throw new RuntimeException('not a signed webhook');
    }
    // Refuse old or future deliveries: a replayed one fails here.
    if (!ctype_digit($timestamp) || abs(time() - (int) $timestamp) > 5 * 60) {
        throw new RuntimeException('timestamp too old or too new');
    }
    $key = base64_decode(preg_replace('/^whsec_/', '', $secret), true);
    $expected = base64_encode(hash_hmac('sha256', $id . '.' . $timestamp . '.' . $rawBody, $key, true));
    // While a rotated secret still signs there are two signatures: one matching is enough.
    foreach (explode(' ', $signatures) as $signature) {
        [$version, $value] = array_pad(explode(',', $signature, 2), 2, '');
        if ($version === 'v1' && hash_equals($expected, $value)) {
            return json_decode($rawBody, true, 512, JSON_THROW_ON_ERROR);
        }
    }
    throw new RuntimeException('bad signature');
}
`,
  usage: `
// The body exactly as sent, and the request's headers.
try {
    $event = verify_webhook(file_get_contents('php://input'), getallheaders(), getenv('${SECRET_ENV}'));
} catch (Throwable $e) {
    http_response_code(400);
    exit;
}
// The same webhook-id arrives again on a retry: skip one already handled.
error_log($event['type']);
http_response_code(204);
`,
};

export const VERIFY_SNIPPETS: readonly VerifySnippet[] = [node, python, php];
