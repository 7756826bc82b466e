// The change log's event types: what each means and which group the admin shows it in.
// `volume: 'bulk'` marks the types written once per subscriber: a bulk change (an import, a
// change by query) writes them only while an enabled consumer wants the type, and views and
// clicks (`volume: 'consumed'`) are written only then even one at a time.

export type EventVolume = 'single' | 'bulk' | 'consumed';

export interface EventTypeInfo {
  group: 'subscribers' | 'subscriptions' | 'campaigns' | 'lists' | 'bounces' | 'imports' | 'tracking' | 'webhooks';
  description: string;
  volume: EventVolume;
}

export const EVENT_TYPES = {
  'subscriber.created': { group: 'subscribers', volume: 'bulk', description: 'A subscriber was added (API, admin, public form or import).' },
  'subscriber.updated': { group: 'subscribers', volume: 'bulk', description: "A subscriber's e-mail, name, attributes or status changed; `changes` has the old and new values (not when an import overwrote them)." },
  'subscriber.deleted': { group: 'subscribers', volume: 'bulk', description: 'A subscriber was deleted; the payload is the subscriber as it was.' },
  'subscriber.blocklisted': { group: 'subscribers', volume: 'bulk', description: 'A subscriber was blocklisted (and unsubscribed from every list).' },
  'subscription.added': { group: 'subscriptions', volume: 'bulk', description: 'A subscriber was added to a list, with the subscription status.' },
  'subscription.confirmed': { group: 'subscriptions', volume: 'bulk', description: 'A subscriber confirmed a double opt-in subscription (or it was confirmed for them).' },
  'subscription.unsubscribed': { group: 'subscriptions', volume: 'bulk', description: 'A subscriber left a list; `campaign` names the mail it came from, when it did.' },
  'subscription.removed': { group: 'subscriptions', volume: 'bulk', description: 'A subscription was deleted (the subscriber was taken off the list).' },
  'campaign.created': { group: 'campaigns', volume: 'single', description: 'A campaign was created.' },
  'campaign.started': { group: 'campaigns', volume: 'single', description: 'A campaign began sending.' },
  'campaign.paused': { group: 'campaigns', volume: 'single', description: 'A campaign was paused, by a person or by the sending engine, with the reason.' },
  'campaign.finished': { group: 'campaigns', volume: 'single', description: 'A campaign finished sending, with its sent and failed counts.' },
  'campaign.cancelled': { group: 'campaigns', volume: 'single', description: 'A campaign was cancelled.' },
  'campaign.viewed': { group: 'tracking', volume: 'consumed', description: 'A campaign was opened (its tracking pixel loaded).' },
  'link.clicked': { group: 'tracking', volume: 'consumed', description: 'A tracked link in a campaign was clicked.' },
  'bounce.recorded': { group: 'bounces', volume: 'single', description: 'A bounce was recorded for a subscriber.' },
  'import.finished': { group: 'imports', volume: 'single', description: 'An import ended, with its counts.' },
  'list.created': { group: 'lists', volume: 'single', description: 'A list was created.' },
  'list.updated': { group: 'lists', volume: 'single', description: "A list's settings changed; `changes` has the old and new values." },
  'list.deleted': { group: 'lists', volume: 'single', description: 'A list was deleted; the payload is the list as it was.' },
  'webhook.test': { group: 'webhooks', volume: 'single', description: 'Sent by "Test" on a webhook; no change behind it.' },
} as const satisfies Record<string, EventTypeInfo>;

export type EventType = keyof typeof EVENT_TYPES;

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_TYPES, type);
}
