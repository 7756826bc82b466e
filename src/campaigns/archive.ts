// A campaign as its public archive page: rendered for archive_meta's stand-in subscriber, and
// greeting nobody when that names nobody.
import { ZERO_UUID, type CompiledCampaign, type RenderedCampaign, type RenderSubscriber } from '../rendering/message.ts';

/** The name archive pages greet when archive_meta names nobody (so never "Hello !"). */
export const ARCHIVE_SUBSCRIBER_NAME = 'Subscriber';

/** archive_meta as the stand-in subscriber of archive pages, read as listmonk does: keys in any case. */
export function archiveSubscriber(meta: Record<string, unknown>): RenderSubscriber {
  const m = Object.fromEntries(Object.entries(meta).map(([k, v]) => [k.toLowerCase(), v]));
  const str = (v: unknown, d: string) => (typeof v === 'string' ? v : d);
  return {
    id: 0, uuid: str(m.uuid, ZERO_UUID), email: str(m.email, ''), name: str(m.name, '') || ARCHIVE_SUBSCRIBER_NAME,
    attribs: m.attribs && typeof m.attribs === 'object' ? (m.attribs as Record<string, unknown>) : {},
    status: str(m.status, 'enabled'), created_at: null, updated_at: null,
  };
}

/** archive_meta names a reader (a non-empty "name", in any case). */
function namesReader(meta: Record<string, unknown>): boolean {
  return Object.entries(meta).some(([k, v]) => k.toLowerCase() === 'name' && typeof v === 'string' && v.trim() !== '');
}

/** Stands for the reader's name on an archive page that names nobody (a private-use character). */
const NO_NAME = '\u{E000}';
/** A block that is only a greeting: up to three words, the name, a punctuation mark ("Hello <name>,"). */
const GREETING_BLOCK = new RegExp(`^(?:[\\p{L}\\p{M}'’]+\\s+){0,3}${NO_NAME}\\s*[,!.:;]?$`, 'u');
const BLOCK = /<(p|h[1-6]|li|div)\b[^>]*>((?:(?!<\/?\1\b)[\s\S])*?)<\/\1\s*>/giu;
/** A greeting opening a text run ("Hi <name>, here is…"): up to two words, the name, a comma or "!". */
const GREETING_LEAD = new RegExp(`(^|>|\\n)([ \\t]*)(?:[\\p{L}\\p{M}'’]+[ \\t]+){0,2}${NO_NAME}[ \\t]*[,!][ \\t]*`, 'gu');

const textOf = (html: string) => html.replace(/<[^>]*>/g, '').replace(/&nbsp;|&#160;/g, ' ').replace(/\s+/g, ' ').trim();

/** The page without the greetings made for a reader (blocks that only greet, and greetings opening a line). */
function withoutGreetings(html: string): string {
  return html
    .replace(BLOCK, (whole: string, _tag: string, inner: string) => (GREETING_BLOCK.test(textOf(inner)) ? '' : whole))
    .replace(GREETING_LEAD, '$1$2')
    .replaceAll(NO_NAME, ARCHIVE_SUBSCRIBER_NAME);
}

/**
 * A campaign as its archive page: for archive_meta's stand-in subscriber. When that names
 * nobody, the page greets nobody ("Hello Subscriber," is left out); other uses of the name
 * read ARCHIVE_SUBSCRIBER_NAME.
 */
export function renderArchive(compiled: CompiledCampaign, meta: Record<string, unknown>): RenderedCampaign {
  const reader = archiveSubscriber(meta);
  if (namesReader(meta)) return compiled.render(reader);
  const r = compiled.render({ ...reader, name: NO_NAME });
  return { ...r, subject: r.subject.replaceAll(NO_NAME, ARCHIVE_SUBSCRIBER_NAME), html: withoutGreetings(r.html) };
}
