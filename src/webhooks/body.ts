// The body of a webhook delivery, built from the event alone: the same bytes on every retry
// (the signature covers them), and the same for the worker that sends it and the API that shows
// what was sent.

/** `{"type", "timestamp", "data"}`: `data` is the event's payload as stored (already JSON). */
export function eventBody(e: { type: string; occurred_at: string; data: string }): string {
  return `{"type":${JSON.stringify(e.type)},"timestamp":${JSON.stringify(e.occurred_at)},"data":${e.data}}`;
}
