// The body and headers of a webhook delivery, built from the event alone: the same bytes on
// every retry (the signature covers them), and the same for the worker that sends it and the
// API that shows what was sent.
import { VERSION } from '../config.ts';

/** `{"type", "timestamp", "data"}`: `data` is the event's payload as stored (already JSON). */
export function eventBody(e: { type: string; occurred_at: string; data: string }): string {
  return `{"type":${JSON.stringify(e.type)},"timestamp":${JSON.stringify(e.occurred_at)},"data":${e.data}}`;
}

/**
 * The headers of a delivery but its signature (the worker adds that; it is made with the
 * secret): `timestamp` is when the attempt was signed, in Unix seconds, once there was one.
 */
export function unsignedHeaders(eventUuid: string, timestamp: number | null): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `listmgr/${VERSION}`,
    'webhook-id': eventUuid,
  };
  if (timestamp !== null) headers['webhook-timestamp'] = String(timestamp);
  return headers;
}
