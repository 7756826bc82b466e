// Parts of a campaign's form with a script of their own: the list picker (search, chips, and
// the live count of the subscribers the campaign would reach), the attachments (chips fed by
// the media picker), and the summary a start or a schedule asks to confirm.
import { api } from '../admin/client/api.ts';
import { component, readData } from '../admin/client/component.ts';
import { clicked } from '../admin/client/dialog.ts';
import { pickMedia } from '../admin/client/media-picker.ts';

/** What the chips' owner carries: the remove buttons' label, "Remove {name}". */
export interface ChipsData {
  removeLabel: string;
}

/** What the list picker carries: the campaign's type (its audience is counted by it). */
export interface ListPickerData extends ChipsData {
  type: string;
}

/** A chip's remove button: the id of what it removes. */
export interface ChipButton {
  remove: string;
}

/** A list on offer: its name in lower case, which the search matches. */
export interface ListOption {
  name: string;
}

/** A list's tick box: the list's name, for its chip. */
export interface ListBox {
  name: string;
}

/** GET /api/campaigns/audience: who a campaign to some lists reaches, and who of their members not, and why. */
export interface Audience {
  count: number;
  lists: number;
  members: number;
  excluded: { unconfirmed: number; unsubscribed: number; blocklisted: number; nothing_to_confirm: number };
  optin_lists: { id: number; name: string; unconfirmed: number; manage: boolean }[];
}

const number = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many: string) => `${number(n)} ${n === 1 ? one : many}`;

/** How many subscribers a campaign to these lists would reach now (GET /api/campaigns/audience, counted as its to_send). */
export function audience(listIds: number[], type: string): Promise<Audience> {
  const params = new URLSearchParams(listIds.map((id) => ['list_id', String(id)]));
  params.set('type', type);
  return api<Audience>('GET', `/api/campaigns/audience?${params}`);
}

/** "12,408 subscribers of 2 lists", or with members left out "1 of 1,998 subscribers of 1 list". */
export function audienceText(a: Audience): string {
  const of = a.members > a.count ? `${number(a.count)} of ${plural(a.members, 'subscriber', 'subscribers')}` : plural(a.count, 'subscriber', 'subscribers');
  return `${of} of ${plural(a.lists, 'list', 'lists')}`;
}

/** "1,997 unconfirmed subscribers of double opt-in lists and 2 unsubscribed are not sent to.", or '' when nobody is left out. */
export function exclusionText(a: Audience): string {
  const e = a.excluded;
  const parts = [
    e.unconfirmed ? `${plural(e.unconfirmed, 'unconfirmed subscriber', 'unconfirmed subscribers')} of double opt-in lists` : '',
    e.nothing_to_confirm ? `${number(e.nothing_to_confirm)} with nothing to confirm` : '',
    e.unsubscribed ? `${number(e.unsubscribed)} unsubscribed` : '',
    e.blocklisted ? `${number(e.blocklisted)} blocklisted` : '',
  ].filter(Boolean);
  if (!parts.length) return '';
  const total = e.unconfirmed + e.nothing_to_confirm + e.unsubscribed + e.blocklisted;
  const who = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `${who} ${total === 1 ? 'is' : 'are'} not sent to.`;
}

/**
 * The way to reach the unconfirmed: "Send them the opt-in confirmation: Imported readers
 * (1,997)", a link to each double opt-in list's opt-in action the user may run; null if none.
 */
export function optinFix(a: Audience): HTMLElement | null {
  const lists = a.optin_lists.filter((l) => l.manage);
  if (!lists.length) return null;
  const p = document.createElement('span');
  p.className = 'audience-fix';
  p.append('Send them the opt-in confirmation: ');
  lists.forEach((l, i) => {
    const link = document.createElement('a');
    link.href = `/admin/lists/${l.id}#optin`;
    link.textContent = `${l.name} (${number(l.unconfirmed)} unconfirmed)`;
    p.append(...(i ? [', '] : []), link);
  });
  return p;
}

/**
 * What a start (or a schedule, at `sendAt`) asks: 'Send "October" to 12,408 subscribers of 2
 * lists?', with who is left out and why, and the way to reach the unconfirmed. Without the
 * count (a refused call), the plain question.
 */
export async function startQuestion(o: { name: string; lists: number[]; type: string; sendAt: string | null; fallback: string }): Promise<{ question: string; details: HTMLElement[] }> {
  let a: Audience;
  try {
    a = await audience(o.lists, o.type);
  } catch {
    return { question: o.fallback, details: [] };
  }
  const who = audienceText(a);
  const excluded = exclusionText(a);
  const fix = optinFix(a);
  const details = [...(excluded ? [Object.assign(document.createElement('p'), { textContent: excluded })] : []), ...(fix ? [fix] : [])];
  if (!o.sendAt) return { question: `Send "${o.name}" to ${who}?`, details };
  const when = new Date(o.sendAt).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
  return { question: `Schedule "${o.name}" to be sent to ${who} on ${when}?`, details };
}

/** A chip of the chosen things, with its remove button (the label template comes from the page: "Remove {name}"). */
function chip(id: string, name: string, removeLabel: string, extra?: HTMLElement): HTMLLIElement {
  const li = document.createElement('li');
  li.className = 'chip';
  li.dataset.id = id;
  const text = document.createElement('span');
  text.textContent = name;
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'chip-remove';
  remove.dataset.remove = id;
  remove.textContent = '×';
  remove.setAttribute('aria-label', removeLabel.replace('{name}', name));
  li.append(text, ...(extra ? [extra] : []), remove);
  return li;
}

interface PartThis {
  $root: HTMLElement;
  $event: Event;
}

/** The id of the chip whose remove button was clicked (the chips' list handles the clicks), or null. */
function removed(event: Event): string | null {
  const button = (event.target as Element).closest<HTMLElement>('[data-remove]');
  return button ? readData<ChipButton>(button).remove : null;
}

export const listPicker = component('listPicker', () => {
  let generation = 0;
  const boxes = (root: HTMLElement) => [...root.querySelectorAll<HTMLInputElement>('input[type="checkbox"][name="lists"]')];
  const refresh = async (root: HTMLElement) => {
    const chosen = boxes(root).filter((b) => b.checked);
    const { type, removeLabel } = readData<ListPickerData>(root);
    const chips = root.querySelector<HTMLElement>('[data-chips]')!;
    chips.replaceChildren(...chosen.map((b) => chip(b.value, readData<ListBox>(b).name, removeLabel)));
    const slot = root.querySelector<HTMLElement>('[data-audience]');
    if (!slot) return;
    const mine = ++generation;
    if (!chosen.length) {
      slot.textContent = 'Choose at least one list.';
      return;
    }
    slot.textContent = 'Counting the subscribers…';
    try {
      const a = await audience(chosen.map((b) => Number(b.value)), type);
      if (mine !== generation) return;
      const excluded = exclusionText(a);
      slot.textContent = excluded ? `Reaches ${audienceText(a)}: ${excluded}` : `Reaches ${audienceText(a)} (subscribed, not blocklisted).`;
      const fix = optinFix(a);
      if (fix) slot.append(fix);
    } catch (err) {
      if (mine === generation) slot.textContent = `The subscribers cannot be counted: ${(err as Error).message}`;
    }
  };
  return {
    init(this: PartThis) {
      // A campaign that cannot be changed has its lists as chips only: nothing to count or redraw.
      if (this.$root.querySelector('[data-options]')) void refresh(this.$root);
    },
    /** Shows the lists whose name holds what is typed in the search box. */
    filter(this: PartThis) {
      const query = (this.$event.target as HTMLInputElement).value.trim().toLowerCase();
      let shown = 0;
      for (const li of this.$root.querySelectorAll<HTMLElement>('[data-options] li')) {
        li.hidden = !readData<ListOption>(li).name.includes(query);
        if (!li.hidden) shown++;
      }
      const none = this.$root.querySelector<HTMLElement>('[data-no-match]');
      if (none) none.hidden = shown > 0;
    },
    /** Enter in the search box does not save the campaign. */
    keepForm(this: PartThis) {
      if ((this.$event as KeyboardEvent).key === 'Enter') this.$event.preventDefault();
    },
    changed(this: PartThis) {
      void refresh(this.$root);
    },
    remove(this: PartThis) {
      const id = removed(this.$event);
      const box = id ? this.$root.querySelector<HTMLInputElement>(`#c-list-${id}`) : null;
      if (!box) return;
      box.checked = false;
      void refresh(this.$root);
      this.$root.querySelector<HTMLElement>('#c-lists-search')?.focus();
    },
  };
});

export const attachments = component('attachments', () => {
  const sync = (root: HTMLElement) => {
    root.querySelector<HTMLElement>('[data-none]')!.hidden = root.querySelector('[data-chips] li') !== null;
  };
  return {
    async add(this: PartThis) {
      const trigger = clicked(this.$event);
      const root = this.$root;
      const picked = await pickMedia({ title: 'Attach a file from the media library', verb: 'Attach', images: false });
      trigger.focus();
      if (!picked || picked.id === null) return;
      const chips = root.querySelector<HTMLElement>('[data-chips]')!;
      if (chips.querySelector(`[data-id="${picked.id}"]`)) return;
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = 'media';
      input.value = String(picked.id);
      input.dataset.kind = 'ints';
      chips.append(chip(String(picked.id), picked.filename, readData<ChipsData>(root).removeLabel, input));
      sync(root);
    },
    remove(this: PartThis) {
      const id = removed(this.$event);
      if (!id) return;
      this.$root.querySelector(`[data-chips] [data-id="${id}"]`)?.remove();
      sync(this.$root);
    },
  };
});
