-- The first-run checklist's "put the subscription form on your site" step is done once someone
-- has subscribed through the public form or API (subscriber_lists.source = 'form'). Without an
-- index, finding none meant reading every subscription (1M rows: a full scan on each dashboard
-- view); this partial index holds only the form's rows, so imports and API writes never touch it.
CREATE INDEX subscriber_lists_form ON subscriber_lists (source) WHERE source = 'form';
