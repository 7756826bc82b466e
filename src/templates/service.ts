// Template rules beyond the SQL: who may read or change templates, what a template must
// contain to be saved, and previews. Validation and previews compile through the campaign/tx
// renderer (src/rendering/message.ts), so a template that saves is exactly a template that sends.
import type { AppContext } from '../context.ts';
import { compileCampaign, compileTx, DEMO_SUBSCRIBER, renderEnv, RenderError, type RenderCampaign, type RenderEnv } from '../rendering/message.ts';
import { invalid, denied } from '../core/errors.ts';
import { authorize, can, type Actor, type Authorized } from '../core/authz.ts';
import { translate } from '../i18n/index.ts';
import { DUMMY_UUID, hasContentPlaceholder } from '../templating/index.ts';
import type { TrackingStore } from '../tracking/store.ts';
import type { TemplateType } from './defaults/index.ts';
import { TEMPLATE_TYPES, type TemplateRow, type TemplateStore } from './store.ts';
export type { TemplateRow } from './store.ts';

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

/** A template as a create or change request gives it. */
export interface TemplateInput {
  /** Create: default campaign. Change: read but ignored (a template keeps its type). */
  type?: TemplateType;
  name: string;
  /** Only tx templates keep one. */
  subject?: string;
  body?: string;
  /** The visual builder's block document (campaign_visual only). */
  body_source?: string;
}

/** A template body to preview: of this type (default campaign), or in place of a stored one's. */
export interface PreviewInput {
  template_type?: string;
  body?: string;
}

const placeholderMissing = () => invalid('a campaign template must contain the {{ template "content" . }} placeholder where the campaign body goes');

/** A preview's `template_type`: one of the template types, or not given when empty. */
function previewType(v: string | undefined): TemplateType | undefined {
  if (!v) return undefined;
  if (!TEMPLATE_TYPES.includes(v as TemplateType)) throw invalid(`invalid "template_type": "${v}" is not one of ${TEMPLATE_TYPES.join(', ')}`);
  return v as TemplateType;
}

export class TemplateService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: TemplateStore,
    private readonly tracking: TrackingStore,
  ) {}

  /** Templates are readable (templates:get) or changeable (templates:manage) as a whole, not one by one. */
  private authorize(actor: Actor, permission: 'templates:get' | 'templates:manage'): void {
    if (!can(actor, permission)) throw denied(`permission denied: ${permission}`);
  }

  private manageable(actor: Actor, id: number): Authorized<number> {
    return authorize(id, () => can(actor, 'templates:manage'), () => denied('permission denied: templates:manage'));
  }

  all(actor: Actor): TemplateRow[] {
    this.authorize(actor, 'templates:get');
    return this.store.all();
  }

  get(actor: Actor, id: number): TemplateRow {
    this.authorize(actor, 'templates:get');
    return this.store.get(id);
  }

  create(actor: Actor, input: TemplateInput): TemplateRow {
    this.authorize(actor, 'templates:manage');
    const t = {
      name: input.name,
      type: input.type ?? 'campaign',
      subject: input.subject ?? '',
      body: input.body ?? '',
      bodySource: input.body_source || null,
    };
    this.checkSave(t);
    return this.store.create(t);
  }

  /** The stored type rules (it never changes, a given one is ignored, as listmonk does); an empty subject, body or body source keeps the stored one. */
  update(actor: Actor, id: number, input: TemplateInput): TemplateRow {
    const checked = this.manageable(actor, id);
    const cur = this.store.get(id);
    const t = {
      name: input.name,
      subject: input.subject || cur.subject,
      body: input.body || cur.body,
      bodySource: input.body_source || cur.body_source,
    };
    this.checkSave({ ...t, type: cur.type });
    return this.store.update(checked, t);
  }

  setDefault(actor: Actor, id: number): TemplateRow {
    return this.store.setDefault(this.manageable(actor, id));
  }

  delete(actor: Actor, id: number): void {
    this.store.delete(this.manageable(actor, id));
  }

  /** POST /templates/preview: an unsaved template, campaign type unless `template_type` says otherwise. */
  previewUnsaved(actor: Actor, input: PreviewInput): string {
    this.authorize(actor, 'templates:get');
    return this.preview({ type: previewType(input.template_type) ?? 'campaign', subject: '', body: input.body ?? '' });
  }

  /** /templates/{id}/preview: the stored template, or a given `body` (and `template_type`) in its place. */
  previewStored(actor: Actor, id: number, input: PreviewInput): string {
    this.authorize(actor, 'templates:get');
    const t = this.store.get(id);
    if (!input.body) return this.preview(t);
    return this.preview({ type: previewType(input.template_type) ?? t.type, subject: t.subject, body: input.body });
  }

  /**
   * Campaign types render around SAMPLE_BODY in a dummy campaign (all-zero UUIDs, so nothing
   * is counted); tx templates with an empty `.Tx`. Both with listmonk's demo subscriber.
   */
  private preview(t: TemplateSource): string {
    const render = this.compile(t);
    return RenderError.describing('the template does not render', render);
  }

  private checkSave(t: TemplateSource): void {
    if (t.type === 'tx' && t.subject.trim() === '') throw invalid('"subject" is required for a tx template');
    this.compile(t);
  }

  /** Compiles like a real send (campaign or generic functions, html mode, shorthands for campaigns); 400 with the engine's message. */
  private compile(t: TemplateSource): () => string {
    if (t.type === 'campaign' && !hasContentPlaceholder(t.body)) throw placeholderMissing();
    const env = renderEnv(this.ctx, this.tracking, 'preview');
    return RenderError.describing('the template does not compile', () => {
      if (t.type === 'tx') {
        const tx = compileTx(t.subject, t.body, null, env);
        return () => tx.render(DEMO_SUBSCRIBER, {}).body;
      }
      const campaign = t.type === 'campaign'
        ? compileCampaign(this.dummyCampaign(SAMPLE_BODY, 'richtext', env), t.body, env)
        : compileCampaign(this.dummyCampaign(t.body, 'visual', env), null, env);
      return () => campaign.render(DEMO_SUBSCRIBER).html;
    });
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
