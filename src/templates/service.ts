// Template rules beyond the SQL: what a template must contain to be saved, and previews.
// Validation and previews compile through the campaign/tx renderer (src/campaigns/render.ts),
// so a template that saves is exactly a template that sends.
import type { AppContext } from '../context.ts';
import { compileCampaign, compileTx, DEMO_SUBSCRIBER, RenderError, type RenderCampaign, type RenderEnv } from '../campaigns/render.ts';
import { renderEnv } from '../campaigns/compose.ts';
import type { Body } from '../http/body.ts';
import { badRequest } from '../http/errors.ts';
import { optEnum, optString, reqString } from '../http/validate.ts';
import { translate } from '../i18n/index.ts';
import { DUMMY_UUID, hasContentPlaceholder } from '../templating/index.ts';
import type { TrackingStore } from '../tracking/store.ts';
import type { TemplateType } from './defaults/index.ts';
import { TEMPLATE_TYPES, type TemplateRow, type TemplateStore } from './store.ts';

const MAX_NAME_BYTES = 2000;

/** What a campaign template previews around: paragraphs, a heading and a tracked link. */
export const SAMPLE_BODY = `<p>Hello {{ .Subscriber.Name }},</p>
<p>This is a sample message shown in place of a campaign's content, so you can see how the
template frames it: the width of the text, the fonts, the colours and the footer.</p>
<h2>A section heading</h2>
<p>A second paragraph follows the heading. Real campaigns put their news, offers or updates
here; the template stays the same around every one of them.</p>
<p>And here is <a href="https://example.com/@TrackLink">a tracked link</a> to check how links look.</p>
`;

/** What a preview or a save check renders: the template's type, subject and body. */
export interface TemplateSource {
  type: TemplateType;
  subject: string;
  body: string;
}

const placeholderMissing = () => badRequest('a campaign template must contain the {{ template "content" . }} placeholder where the campaign body goes');

export class TemplateService {
  constructor(
    private readonly ctx: AppContext,
    readonly store: TemplateStore,
    private readonly tracking: TrackingStore,
  ) {}

  create(b: Body): TemplateRow {
    const type = optEnum(b, 'type', TEMPLATE_TYPES) ?? 'campaign';
    const t = {
      name: reqString(b, 'name', { maxBytes: MAX_NAME_BYTES }),
      type,
      subject: optString(b, 'subject') ?? '',
      body: optString(b, 'body', { trim: false }) ?? '',
      bodySource: optString(b, 'body_source', { trim: false }) || null,
    };
    this.checkSave(t);
    return this.store.create(t);
  }

  /** The stored type rules (it never changes); an empty subject, body or body source keeps the stored one. */
  update(id: number, b: Body): TemplateRow {
    const cur = this.store.get(id);
    optEnum(b, 'type', TEMPLATE_TYPES); // a valid type is accepted and ignored, as listmonk does
    const t = {
      name: reqString(b, 'name', { maxBytes: MAX_NAME_BYTES }),
      subject: optString(b, 'subject') || cur.subject,
      body: optString(b, 'body', { trim: false }) || cur.body,
      bodySource: optString(b, 'body_source', { trim: false }) || cur.body_source,
    };
    this.checkSave({ ...t, type: cur.type });
    return this.store.update(id, t);
  }

  /**
   * Campaign types render around SAMPLE_BODY in a dummy campaign (all-zero UUIDs, so nothing
   * is counted); tx templates with an empty `.Tx`. Both with listmonk's demo subscriber.
   */
  preview(t: TemplateSource): string {
    const render = this.compile(t);
    try {
      return render();
    } catch (e) {
      if (e instanceof RenderError) throw badRequest(`the template does not render: ${e.message}`);
      throw e;
    }
  }

  /** The source of POST /templates/preview: form (or JSON) fields `template_type` and `body`. */
  sourceOf(b: Body): TemplateSource {
    return { type: optEnum(b, 'template_type', TEMPLATE_TYPES) ?? 'campaign', subject: '', body: optString(b, 'body', { trim: false }) ?? '' };
  }

  /** The source of /templates/{id}/preview: the stored template, or a posted `body` (and `template_type`) in its place. */
  storedSourceOf(id: number, b: Body): TemplateSource {
    const t = this.store.get(id);
    const body = optString(b, 'body', { trim: false });
    if (!body) return t;
    return { type: optEnum(b, 'template_type', TEMPLATE_TYPES) ?? t.type, subject: t.subject, body };
  }

  private checkSave(t: TemplateSource): void {
    if (t.type === 'tx' && t.subject.trim() === '') throw badRequest('"subject" is required for a tx template');
    this.compile(t);
  }

  /** Compiles like a real send (campaign or generic functions, html mode, shorthands for campaigns); 400 with the engine's message. */
  private compile(t: TemplateSource): () => string {
    if (t.type === 'campaign' && !hasContentPlaceholder(t.body)) throw placeholderMissing();
    const env = renderEnv(this.ctx, this.tracking);
    try {
      if (t.type === 'tx') {
        const tx = compileTx(t.subject, t.body, null, env);
        return () => tx.render(DEMO_SUBSCRIBER, {}).body;
      }
      const campaign = t.type === 'campaign'
        ? compileCampaign(this.dummyCampaign(SAMPLE_BODY, 'richtext', env), t.body, env)
        : compileCampaign(this.dummyCampaign(t.body, 'visual', env), null, env);
      return () => campaign.render(DEMO_SUBSCRIBER).html;
    } catch (e) {
      if (e instanceof RenderError) throw badRequest(`the template does not compile: ${e.message}`);
      throw e;
    }
  }

  private dummyCampaign(body: string, contentType: 'richtext' | 'visual', env: RenderEnv): RenderCampaign {
    const now = new Date().toISOString();
    return {
      id: 0, uuid: DUMMY_UUID, name: translate(env.i18n.messages, 'templates.dummyName'),
      subject: translate(env.i18n.messages, 'templates.dummySubject'), from_email: this.ctx.settings.str('app.from_email'),
      body, altbody: null, content_type: contentType, headers: [], tags: [], attribs: {}, type: 'regular', messenger: 'email',
      template_id: null, send_at: null, created_at: now, updated_at: now, started_at: null, to_send: 0, sent: 0,
      archive: false, archive_slug: null,
    };
  }
}
