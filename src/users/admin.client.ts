// The users, roles and profile pages: a user's form (with the API token shown once, on creation
// and on "regenerate"), the roles tables (clone, delete), the permission matrix's select-all per
// group, the list role's per-list grants, the profile form and the two-factor enrolment.
import { api, navigate, notifyError, pageData } from '../admin/client/api.ts';
import { clicked, confirmAction, promptPassword, promptText } from '../admin/client/dialog.ts';
import { clearErrors, FieldError, formJson, showError, type ApiFormData } from '../admin/client/form.ts';
import { component, readData } from '../admin/client/component.ts';

/** What a user's or a role's buttons carry. */
export interface NamedButton {
  id: string;
  name: string;
}

/** A user's Enable / Disable button: the status it sets. */
export interface StatusButton extends NamedButton {
  status: 'enabled' | 'disabled';
}

/** The button that turns another user's 2FA off: the question, the password field's label, the message after. */
export interface TwofaOffButton {
  id: string;
  confirm: string;
  passwordLabel: string;
  done: string;
}

/** What the user form carries beside where it sends (ApiFormData): the user's type and password login. */
export interface UserFormData {
  type: 'user' | 'api';
  passwordLogin: 'true' | 'false';
}

/** A user role as the user form's role choice needs it (`user-roles`): whether it reaches every list. */
export interface RoleReach {
  id: number;
  all: boolean;
}

/** Which kind of role a roles table holds (on its root). */
export interface RolesTable {
  kind: 'users' | 'lists';
}

/** The permission matrix's markers: a group's fieldset, and the group's "all" box. */
export interface PermissionGroupData {
  group: string;
}
export interface GroupAllBox {
  all: string;
}

/** The profile form's message after a password change (ApiFormData's flash: after other changes). */
export interface ProfileFormData {
  flashPassword: string;
}

/** Whose two-factor sign-in the profile's section changes. */
export interface TwofaData {
  id: string;
}

/** What a list role's page hands its form (`list-role-data`). */
export interface ListRoleData {
  lists: { id: number; name: string }[];
  grants: { id: number; name: string; get: boolean; manage: boolean }[];
  labels: { get: string; manage: string; remove: string };
}

/**
 * The form's JSON body, a password typed twice checked first: a FieldError beside the second
 * field when they differ. The repeat (`password2`) is not sent.
 */
function bodyWithPassword(form: HTMLFormElement, first: string, second: string): Record<string, unknown> {
  const a = form.querySelector<HTMLInputElement>(`#${first}`);
  const b = form.querySelector<HTMLInputElement>(`#${second}`);
  if (a && b && !a.disabled && a.value !== b.value) throw new FieldError(second, 'The two passwords are not the same.');
  const body = formJson(form);
  delete body.password2;
  return body;
}

/**
 * A form's submit: the page stays, old messages are cleared, `busy` while `send` runs, and a
 * refusal is shown beside the field it names (what was typed is kept).
 */
async function submitting(self: { busy: boolean; $event: Event }, send: (form: HTMLFormElement) => Promise<void>): Promise<void> {
  self.$event.preventDefault();
  const form = self.$event.target as HTMLFormElement;
  clearErrors(form);
  self.busy = true;
  try {
    await send(form);
  } catch (err) {
    showError(form, err);
  }
  self.busy = false;
}

interface UserAnswer {
  id: number;
  username: string;
  type: 'user' | 'api';
  /** An API user's token, in the answer that makes it (creation, regeneration) only. */
  password: string | null;
}

export const usersPage = component('usersPage', () => ({
  async setStatus(this: { $event: Event }) {
    const { id, name, status } = readData<StatusButton>(clicked(this.$event));
    if (status === 'disabled' && !(await confirmAction(`Disable the user "${name}"? They are signed out and cannot sign in or use the API until enabled again.`, 'Disable'))) return;
    try {
      // list_role_id 0 keeps the list role (its absence would remove it).
      await api('PUT', `/api/users/${id}`, { status, list_role_id: 0 });
      navigate(null, `"${name}" ${status}`);
    } catch (err) {
      notifyError(err);
    }
  },
  async deleteOne(this: { $event: Event }) {
    await deleteUser(clicked(this.$event), null);
  },
}));

async function deleteUser(el: HTMLElement, done: string | null): Promise<void> {
  const { id, name } = readData<NamedButton>(el);
  if (!(await confirmAction(`Delete the user "${name}"? This cannot be undone.`, 'Delete'))) return;
  try {
    await api('DELETE', `/api/users/${id}`);
    navigate(done, `"${name}" deleted`);
  } catch (err) {
    notifyError(err);
  }
}

interface UserPageState {
  type: UserFormData['type'];
  passwordLogin: boolean;
  token: string;
  doneUrl: string;
  busy: boolean;
  listRoleIgnored: boolean;
  $root: HTMLElement;
  $event: Event;
  roleChanged(): void;
}

export const userPage = component('userPage', () => ({
  type: 'user' as UserFormData['type'],
  passwordLogin: true,
  token: '',
  doneUrl: '',
  busy: false,
  listRoleIgnored: false,
  init(this: UserPageState) {
    const form = this.$root.querySelector<HTMLFormElement>('#user-form');
    if (!form) return;
    const user = readData<UserFormData>(form);
    this.type = user.type ?? 'user';
    this.passwordLogin = user.passwordLogin === 'true';
    this.roleChanged();
  },
  isLogin(this: UserPageState) {
    return this.type === 'user';
  },
  hasToken(this: UserPageState) {
    return this.token !== '';
  },
  formShown(this: UserPageState) {
    return this.token === '';
  },
  /** A list role does nothing for a user role that reaches every list (lists:get_all / manage_all). */
  roleChanged(this: UserPageState) {
    const role = this.$root.querySelector<HTMLSelectElement>('#user-role')?.value;
    const listRole = this.$root.querySelector<HTMLSelectElement>('#user-list-role')?.value;
    const roles = pageData<RoleReach[]>('user-roles');
    this.listRoleIgnored = !!listRole && roles.some((r) => String(r.id) === role && r.all);
  },
  async submit(this: UserPageState) {
    await submitting(this, async (form) => {
      const body = bodyWithPassword(form, 'user-password', 'user-password2');
      // An API user has no e-mail or password (the API ignores them; they are not sent).
      if (this.type === 'api') for (const k of ['email', 'password', 'password_login']) delete body[k];
      const to = readData<ApiFormData>(form);
      const user = await api<UserAnswer>(to.method ?? 'POST', to.action ?? '', body);
      const done = (to.done ?? '').replace('{id}', String(user.id));
      if (user.type === 'api' && user.password) {
        this.doneUrl = done;
        this.token = user.password;
      } else navigate(done, to.flash);
    });
  },
  async regenerateToken(this: UserPageState) {
    const { id, name } = readData<NamedButton>(clicked(this.$event));
    if (!(await confirmAction(`Make a new token for "${name}"? The current token stops working at once.`, 'Make a new token'))) return;
    try {
      const user = await api<UserAnswer>('POST', `/api/users/${id}/token`);
      this.doneUrl = `/admin/users/${user.id}`;
      this.token = user.password ?? '';
    } catch (err) {
      notifyError(err);
    }
  },
  async deleteOne(this: UserPageState) {
    await deleteUser(clicked(this.$event), '/admin/users');
  },
  /** Another user's 2FA off: asked first, confirmed with the admin's own password (the API's rule). */
  async disableTwofa(this: UserPageState) {
    const el = clicked(this.$event);
    const button = readData<TwofaOffButton>(el);
    const password = await promptPassword(button.confirm ?? '', button.passwordLabel ?? '', el.textContent?.trim() ?? '');
    if (password === null) return;
    try {
      await api('DELETE', `/api/users/${button.id}/twofa`, { password });
      navigate(null, button.done);
    } catch (err) {
      notifyError(err);
    }
  },
}));

interface Role {
  id: number;
  name: string;
  permissions?: string[];
  lists?: { id: number; permissions: string[] }[];
}

/** The user roles and list roles tables (the root's RolesTable says which). */
export const rolesPage = component('rolesPage', () => ({
  async cloneOne(this: { $event: Event; $root: HTMLElement }) {
    const { id, name: original } = readData<NamedButton>(clicked(this.$event));
    const kind = readData<RolesTable>(this.$root).kind === 'lists' ? 'lists' : 'users';
    const name = await promptText('Name of the copy', `Copy of ${original}`, 'Clone');
    if (!name) return;
    try {
      const roles = await api<Role[]>('GET', `/api/roles/${kind}`);
      const role = roles.find((r) => String(r.id) === id);
      if (!role) throw new Error(`The role "${original}" no longer exists.`);
      const body = kind === 'users' ? { name, permissions: role.permissions ?? [] } : { name, lists: (role.lists ?? []).map((l) => ({ id: l.id, permissions: l.permissions })) };
      const created = await api<{ id: number }>('POST', `/api/roles/${kind}`, body);
      navigate(`/admin/users/roles/${kind}/${created.id}`, `"${name}" created`);
    } catch (err) {
      notifyError(err);
    }
  },
  async deleteOne(this: { $event: Event }) {
    const { id, name } = readData<NamedButton>(clicked(this.$event));
    if (!(await confirmAction(`Delete the role "${name}"?`, 'Delete'))) return;
    try {
      await api('DELETE', `/api/roles/${id}`);
      navigate(null, `"${name}" deleted`);
    } catch (err) {
      notifyError(err);
    }
  },
}));

/** The user role's matrix: a group's "all" box ticks or clears its permissions and follows them. */
export const permissionMatrix = component('permissionMatrix', () => ({
  init(this: { $root: HTMLElement; sync(): void }) {
    this.sync();
  },
  toggleGroup(this: { $event: Event }) {
    const box = this.$event.target as HTMLInputElement;
    const group = box.closest('fieldset');
    group?.querySelectorAll<HTMLInputElement>('input[name="permissions"]').forEach((el) => (el.checked = box.checked));
  },
  /** Each group's "all" box: ticked when every permission of the group is, mixed when some are. */
  sync(this: { $root: HTMLElement }) {
    for (const group of this.$root.querySelectorAll<HTMLFieldSetElement>('fieldset[data-group]')) {
      const boxes = [...group.querySelectorAll<HTMLInputElement>('input[name="permissions"]')];
      const all = group.querySelector<HTMLInputElement>('input[data-all]');
      if (!all) continue;
      const on = boxes.filter((b) => b.checked).length;
      all.checked = on === boxes.length;
      all.indeterminate = on > 0 && on < boxes.length;
    }
  },
}));

interface GrantRow {
  id: number;
  name: string;
  get: boolean;
  manage: boolean;
  getLabel: string;
  manageLabel: string;
  removeLabel: string;
}

interface ListRoleState {
  rows: GrantRow[];
  lists: ListRoleData['lists'];
  labels: ListRoleData['labels'];
  filter: string;
  choice: string;
  busy: boolean;
  $event: Event;
  row(l: { id: number; name: string; get: boolean; manage: boolean }): GrantRow;
  setGrant(row: GrantRow, grant: 'get' | 'manage'): void;
}

/** A list role's form: lists added from a searchable choice, get / manage per list. */
export const listRoleForm = component('listRoleForm', () => ({
  rows: [] as GrantRow[],
  lists: [] as ListRoleData['lists'],
  labels: { get: '', manage: '', remove: '' },
  filter: '',
  choice: '',
  busy: false,
  init(this: ListRoleState) {
    const data = pageData<ListRoleData>('list-role-data');
    this.lists = data.lists;
    this.labels = data.labels;
    this.rows = data.grants.map((g) => this.row(g));
  },
  row(this: ListRoleState, l: { id: number; name: string; get: boolean; manage: boolean }): GrantRow {
    return { ...l, getLabel: `${this.labels.get}: ${l.name}`, manageLabel: `${this.labels.manage}: ${l.name}`, removeLabel: `${this.labels.remove} ${l.name}` };
  },
  noRows(this: ListRoleState) {
    return this.rows.length === 0;
  },
  available(this: ListRoleState) {
    const needle = this.filter.trim().toLowerCase();
    return this.lists.filter((l) => !this.rows.some((r) => r.id === l.id) && (!needle || l.name.toLowerCase().includes(needle)));
  },
  noChoice(this: ListRoleState) {
    return this.choice === '';
  },
  addRow(this: ListRoleState) {
    const list = this.lists.find((l) => String(l.id) === this.choice);
    if (!list) return;
    this.rows = [...this.rows, this.row({ ...list, get: true, manage: false })];
    this.choice = '';
  },
  removeRow(this: ListRoleState, id: number) {
    this.rows = this.rows.filter((r) => r.id !== id);
  },
  /** The row's grant set as its ticked (or cleared) box says. */
  setGrant(this: ListRoleState, row: GrantRow, grant: 'get' | 'manage') {
    const { checked } = this.$event.target as HTMLInputElement;
    this.rows = this.rows.map((r) => (r.id === row.id ? { ...r, [grant]: checked } : r));
  },
  setGet(this: ListRoleState, row: GrantRow) {
    this.setGrant(row, 'get');
  },
  setManage(this: ListRoleState, row: GrantRow) {
    this.setGrant(row, 'manage');
  },
  async submit(this: ListRoleState) {
    const lists = this.rows.map((r) => ({ id: r.id, permissions: [...(r.get ? ['list:get'] : []), ...(r.manage ? ['list:manage'] : [])] }));
    await submitting(this, async (form) => {
      const to = readData<ApiFormData>(form);
      await api(to.method ?? 'POST', to.action ?? '', { name: String(formJson(form).name ?? ''), lists });
      navigate(to.done ?? null, to.flash);
    });
  },
}));

export const profileForm = component('profileForm', () => ({
  busy: false,
  async submit(this: { busy: boolean; $event: Event }) {
    await submitting(this, async (form) => {
      const body = bodyWithPassword(form, 'profile-password', 'profile-password2');
      const to = readData<ApiFormData & ProfileFormData>(form);
      await api(to.method ?? 'PUT', to.action ?? '', body);
      navigate(null, body.password ? to.flashPassword : to.flash);
    });
  },
}));

interface TwofaState {
  enrolling: boolean;
  busy: boolean;
  secret: string;
  qrSrc: string;
  startError: string;
  $root: HTMLElement;
  $event: Event;
}

/** The user whose 2FA the section changes (the signed-in user's own). */
const twofaUser = (self: TwofaState) => readData<TwofaData>(self.$root).id;

/**
 * Two-factor sign-in on the profile page. The secret and its QR code (a PNG the server draws)
 * are asked for when the person starts enrolling and live only in this component: no page holds them.
 */
export const twofa = component('twofa', () => ({
  enrolling: false,
  busy: false,
  secret: '',
  qrSrc: '',
  startError: '',
  notEnrolling(this: TwofaState) {
    return !this.enrolling;
  },
  async start(this: TwofaState) {
    this.busy = true;
    this.startError = '';
    try {
      const { secret, qr } = await api<{ secret: string; qr: string }>('GET', `/api/users/${twofaUser(this)}/twofa/totp`);
      this.secret = secret;
      this.qrSrc = `data:image/png;base64,${qr}`;
      this.enrolling = true;
    } catch (err) {
      this.startError = err instanceof Error ? err.message : String(err);
    }
    this.busy = false;
  },
  cancel(this: TwofaState) {
    this.enrolling = false;
    this.secret = '';
    this.qrSrc = '';
  },
  async confirm(this: TwofaState) {
    await submitting(this, async (form) => {
      const { code, password } = formJson(form);
      await api('PUT', `/api/users/${twofaUser(this)}/twofa`, { secret: this.secret, code: String(code ?? ''), password: String(password ?? '') });
      navigate(null, 'Two-factor sign-in is on: the next sign-in asks for a code.');
    });
  },
  async disable(this: TwofaState) {
    await submitting(this, async (form) => {
      await api('DELETE', `/api/users/${twofaUser(this)}/twofa`, formJson(form));
      navigate(null, 'Two-factor sign-in is off.');
    });
  },
}));
