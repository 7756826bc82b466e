// The admin's pages for users, roles and the signed-in user's own profile: the users table
// (/admin/users) and a user's page (/admin/users/:id, `new` creates), the user roles and list
// roles (/admin/users/roles/{users,lists}[/new|/:id]) and /admin/profile. Reads go through the
// users service with the signed-in user; every change is a call to /api from the page's script
// (admin.client.ts), and each control shows only when the user may call the route it names.
// No page ever holds a password, an API token or a TOTP secret: a new token and an enrolment
// secret reach the browser only as the answer to the call that makes them.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { bind, data, type Attrs } from '../admin/bind.ts';
import type { copy } from '../admin/client/shell.ts';
import { apiFormAttrs, apiTarget, CopyButton, Field, fieldAttrs, formBusy, PageData, PageHead, SearchToolbar, Tag, Time } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { HelpLink } from '../help/link.tsx';
import { notFound } from '../core/errors.ts';
import { LIST_PERMISSIONS, PERMISSION_GROUPS, SUPER_ADMIN_ROLE_ID } from '../core/authz.ts';
import { accessOf, routesFor, type Input } from '../http/routes.ts';
import { pathId, q, z } from '../http/schema.ts';
import type { ListService } from '../lists/service.ts';
import type {
  GroupAllBox, ListRoleData, listRoleForm as listRoleScript, NamedButton, PermissionGroupData, permissionMatrix as matrixScript, ProfileFormData,
  profileForm as profileScript, RoleReach, RolesTable, rolesPage as rolesScript, StatusButton, twofa as twofaScript, TwofaData, TwofaOffButton,
  UserFormData, userPage as userScript, usersPage as usersScript,
} from './admin.client.ts';
import { PASSWORD_MIN } from './rules.ts';
import type { ListRoleJson, UserJson, UserRoleJson, UserService } from './service.ts';
import { PERMISSION_GUIDES, PERMISSION_NOTES, POWERFUL } from './permission-notes.ts';
import { USER_ROUTES } from './routes.ts';

/** What the users pages use. */
interface Deps extends AdminDeps {
  userService: UserService;
  /** The lists a list role's form offers. */
  lists: ListService;
}

const route = routesFor<Deps>();
// Static paths before `:id`.
export const USER_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/users', access: accessOf(USER_ROUTES, 'GET', '/users'), handler: usersPage, query: usersPageQuery, raw: 'text/html', summary: 'The users' }),
  route({ method: 'GET', path: '/admin/users/new', access: accessOf(USER_ROUTES, 'POST', '/users'), handler: newUserPage, raw: 'text/html', summary: 'A form for a new user' }),
  route({ method: 'GET', path: '/admin/users/roles/users', access: accessOf(USER_ROUTES, 'GET', '/roles/users'), handler: userRolesPage, raw: 'text/html', summary: 'The user roles' }),
  route({ method: 'GET', path: '/admin/users/roles/users/new', access: accessOf(USER_ROUTES, 'POST', '/roles/users'), handler: newUserRolePage, raw: 'text/html', summary: 'A form for a new user role' }),
  route({ method: 'GET', path: '/admin/users/roles/users/:id', access: accessOf(USER_ROUTES, 'GET', '/roles/users'), handler: userRolePage, raw: 'text/html', summary: 'One user role' }),
  route({ method: 'GET', path: '/admin/users/roles/lists', access: accessOf(USER_ROUTES, 'GET', '/roles/lists'), handler: listRolesPage, raw: 'text/html', summary: 'The list roles' }),
  route({ method: 'GET', path: '/admin/users/roles/lists/new', access: accessOf(USER_ROUTES, 'POST', '/roles/lists'), handler: newListRolePage, raw: 'text/html', summary: 'A form for a new list role' }),
  route({ method: 'GET', path: '/admin/users/roles/lists/:id', access: accessOf(USER_ROUTES, 'GET', '/roles/lists'), handler: listRolePage, raw: 'text/html', summary: 'One list role' }),
  route({ method: 'GET', path: '/admin/users/:id', access: accessOf(USER_ROUTES, 'GET', '/users/:id'), handler: userPage, raw: 'text/html', summary: 'One user' }),
  route({ method: 'GET', path: '/admin/profile', access: 'signed-in', handler: profilePage, raw: 'text/html', summary: 'The signed-in user\'s own profile and two-factor sign-in' }),
];

/** The page's filters are read leniently: a value it does not know is no filter. */
function usersPageQuery() {
  const str = () => q.first({ type: 'string' }, (v) => v?.trim() ?? '');
  return z.object({ query: str(), status: str() });
}

const STATUS_FILTERS = ['all', 'enabled', 'disabled'] as const;
/** The permissions that reach every list: the matrix's lists group (a list role adds nothing to them). */
const LISTS_ALL: readonly string[] = PERMISSION_GROUPS.find((g) => g.group === 'lists')?.permissions ?? [];
/** A list role's two grants on a list. */
const [LIST_GET, LIST_MANAGE] = LIST_PERMISSIONS;

const users = bind<typeof usersScript>('usersPage');
const one = bind<typeof userScript>('userPage');
const roles = bind<typeof rolesScript>('rolesPage');
const matrix = bind<typeof matrixScript>('permissionMatrix');
const listRole = bind<typeof listRoleScript>('listRoleForm');
const profile = bind<typeof profileScript>('profileForm');
const twofa = bind<typeof twofaScript>('twofa');
const copyButton = bind<typeof copy>('copy');

/**
 * The end of a form: where a refusal not about one field is shown, then Save (disabled by
 * `busy`, the binding of the form's component) and Cancel, or why it is read-only.
 */
function FormEnd({ t, editable, busy, submit, cancel, readOnly }: { t: AdminView['t']; editable: boolean; busy: Attrs; submit: string; cancel: string; readOnly: string }): JSX.Element {
  return (
    <>
      <p class="alert" data-error-for="_form" role="alert"></p>
      {editable ? (
        <div class="actions">
          <button type="submit" {...busy}>{submit}</button>
          <a class="button secondary" href={cancel}>{t('globals.buttons.cancel')}</a>
        </div>
      ) : <p class="muted">{readOnly}</p>}
    </>
  );
}

// ---- users -----------------------------------------------------------------------------------

function UserTags({ user, t }: { user: UserJson; t: AdminView['t'] }): JSX.Element {
  return (
    <>
      {user.type === 'api' ? <Tag tone="accent">{t('admin.users.typeApi')}</Tag> : <Tag>{t('admin.users.typeLogin')}</Tag>}
      {user.status === 'disabled' ? <Tag tone="danger">{t('admin.users.disabled')}</Tag> : null}
      {user.twofa_type === 'totp' ? <Tag>{t('admin.users.twofaOn')}</Tag> : null}
    </>
  );
}

function usersPage(c: AdminContext, s: Deps, { query: p }: Input<undefined, ReturnType<typeof usersPageQuery>>) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const status = (STATUS_FILTERS as readonly string[]).includes(p.status) ? p.status : 'all';
  const needle = p.query.toLowerCase();
  const all = s.userService.list(actor);
  const shown = all.filter((u) => (status === 'all' || u.status === status)
    && (!needle || [u.username, u.name, u.email ?? ''].some((v) => v.toLowerCase().includes(needle))));
  return adminPage(c, s, {
    title: t('globals.terms.users'),
    body: (
      <div {...users.root()}>
        <PageHead title={t('globals.terms.users')} count={shown.length}>
          {view.may('GET /admin/users/new') ? <a class="button" href="/admin/users/new">+ {t('users.newUser')}</a> : null}
        </PageHead>
        <SearchToolbar
          path="/admin/users" t={t}
          search={{ id: 'user-search', label: t('admin.users.search'), value: p.query, placeholder: t('admin.users.searchPlaceholder') }}
          status={{ id: 'user-status', value: status, options: STATUS_FILTERS.map((v) => ({ value: v, label: t(`admin.users.status.${v}`) })) }}
        />
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('users.username')}</th>
                <th scope="col">{t('globals.fields.type')}</th>
                <th scope="col" class="hide-narrow">{t('admin.users.userRole')}</th>
                <th scope="col" class="hide-narrow">{t('admin.users.listRole')}</th>
                <th scope="col" class="hide-narrow">{t('subscribers.email')}</th>
                <th scope="col" class="hide-narrow">{t('admin.users.lastLogin')}</th>
                <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              {shown.length === 0 ? (
                <tr><td colspan={7} class="empty">{t('admin.users.noMatch')}</td></tr>
              ) : shown.map((u) => (
                <tr>
                  <td>
                    <a href={`/admin/users/${u.id}`}><strong>{u.username}</strong></a>
                    {u.name !== u.username ? <div class="muted small">{u.name}</div> : null}
                  </td>
                  <td><UserTags user={u} t={t} /></td>
                  <td class="hide-narrow">{u.user_role.name}</td>
                  <td class="hide-narrow">{u.list_role?.name ?? <span class="muted">—</span>}</td>
                  <td class="hide-narrow break">{u.email ?? <span class="muted">—</span>}</td>
                  <td class="hide-narrow"><Time value={u.loggedin_at} /></td>
                  <td>
                    {view.may('PUT /api/users/:id', { id: u.id }) ? (
                      <div class="row-actions">
                        <a href={`/admin/users/${u.id}`}>{t('globals.buttons.edit')}</a>
                        <button type="button" class="link" {...data<StatusButton>({ id: u.id, name: u.username, status: u.status === 'enabled' ? 'disabled' : 'enabled' })} {...users.on('click', 'setStatus')}>
                          {u.status === 'enabled' ? t('admin.users.disable') : t('admin.users.enable')}
                        </button>
                        {u.id === actor.id || !view.may('DELETE /api/users/:id', { id: u.id }) ? null : <button type="button" class="link" {...data<NamedButton>({ id: u.id, name: u.username })} {...users.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button>}
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    ),
  });
}

/** Whether the user may read the roles, and so choose any of them on a user form. */
const seesRoles = (view: AdminView) => view.may('GET /api/roles/users') && view.may('GET /api/roles/lists');

/** The roles a user form offers: all of them to a user who may read the roles, else only the user's own. */
function roleChoices(view: AdminView, s: Deps, user: UserJson | null): { userRoles: { id: number; name: string; permissions: string[] }[]; listRoles: { id: number; name: string }[] } {
  if (seesRoles(view)) return { userRoles: s.userService.userRoles(view.actor), listRoles: s.userService.listRoles(view.actor) };
  return { userRoles: user ? [user.user_role] : [], listRoles: user?.list_role ? [user.list_role] : [] };
}

/**
 * Another user's two-factor sign-in, on: an admin turns it off (a lost phone), confirming with
 * their own password, as the API asks.
 */
function TwofaOff({ user, t }: { user: UserJson; t: AdminView['t'] }): JSX.Element {
  return (
    <section class="card" id="user-twofa" aria-labelledby="user-twofa-title">
      <h2 id="user-twofa-title">{t('users.twoFA')}</h2>
      <p><Tag tone="accent">{t('admin.profile.twofaIsOn')}</Tag> {t('admin.users.twofaOnHelp')}</p>
      <div class="actions">
        <button
          type="button" class="danger" {...one.on('click', 'disableTwofa')}
          {...data<TwofaOffButton>({
            id: user.id, confirm: t('admin.users.twofaOffConfirm', { name: user.username }), passwordLabel: t('admin.users.twofaOffPassword'),
            done: t('admin.users.twofaOffDone', { name: user.username }),
          })}
        >{t('admin.profile.twofaOff')}</button>
      </div>
    </section>
  );
}

/** Where a new API token is shown, once: filled by the page's script from the API's answer. */
function TokenPanel({ t }: { t: AdminView['t'] }): JSX.Element {
  return (
    <section class="card token" {...one.show('hasToken()')} x-cloak aria-labelledby="token-title">
      <h2 id="token-title">{t('admin.users.tokenTitle')}</h2>
      <p class="banner warn" role="alert" {...one.show('hasToken()')}>{t('admin.users.tokenOnce')}</p>
      <label for="api-token">{t('admin.users.token')}</label>
      <input type="text" id="api-token" class="mono" readonly {...one.attr('value', 'token')} />
      <p class="help">{t('admin.users.tokenUse')}</p>
      <div class="actions">
        <button type="button" class="secondary" {...copyButton.root()} {...one.attr('data-copy', 'token')} {...copyButton.on('click', 'copy')}>{t('admin.users.copyToken')}</button>
        <a class="button" {...one.attr('href', 'doneUrl')}>{t('admin.users.tokenDone')}</a>
      </div>
    </section>
  );
}

function UserForm({ user, view, s, editable }: { user: UserJson | null; view: AdminView; s: Deps; editable: boolean }): JSX.Element {
  const { t } = view;
  const fields = { disabled: !editable };
  const { userRoles, listRoles } = roleChoices(view, s, user);
  const type = user?.type ?? 'user';
  return (
    <form
      {...one.show('formShown()')} {...one.on('submit', 'submit')} class="card" id="user-form"
      {...(user
        ? apiTarget('PUT /api/users/:id', { id: user.id }, { done: `/admin/users/${user.id}`, flash: t('admin.saved') })
        : apiTarget('POST /api/users', {}, { done: '/admin/users/{id}', flash: t('admin.users.created') }))}
      {...data<UserFormData>({ type, passwordLogin: user ? user.password_login : true })}
    >
      <PageData<RoleReach[]> id="user-roles" value={userRoles.map((r) => ({ id: r.id, all: r.id === SUPER_ADMIN_ROLE_ID || r.permissions.some((p) => LISTS_ALL.includes(p)) }))} />
      <fieldset>
        <legend>{t('globals.fields.type')}</legend>
        <label class="check-label"><input type="radio" name="type" value="user" {...one.model('type')} checked={type === 'user'} disabled={!!user || !editable} /> {t('admin.users.typeLoginLong')}</label>
        <label class="check-label"><input type="radio" name="type" value="api" {...one.model('type')} checked={type === 'api'} disabled={!!user || !editable} /> {t('admin.users.typeApiLong')}</label>
        {user ? <p class="help">{t('admin.users.typeLocked')}</p> : null}
      </fieldset>
      <div class="grid2">
        <Field id="user-username" label={t('users.username')} help={t('admin.users.usernameHelp')}>
          <input type="text" id="user-username" name="username" value={user?.username ?? ''} required maxlength={200} autocomplete="off" {...fields} />
        </Field>
        <Field id="user-name" label={t('globals.fields.name')}>
          <input type="text" id="user-name" name="name" value={user?.name ?? ''} maxlength={200} {...fieldAttrs({ omitEmpty: '' })} {...fields} />
        </Field>
      </div>
      <div {...one.show('isLogin()')}>
        <Field id="user-email" label={t('subscribers.email')}>
          <input type="email" id="user-email" name="email" value={user?.email ?? ''} autocomplete="off" {...fieldAttrs({ omitEmpty: '' })} {...fields} />
        </Field>
      </div>
      <div class="grid2">
        <Field id="user-status" label={t('globals.fields.status')}>
          <select id="user-status" name="status" {...fields}>
            {(['enabled', 'disabled'] as const).map((v) => <option value={v} selected={(user?.status ?? 'enabled') === v}>{t(`admin.users.status.${v}`)}</option>)}
          </select>
        </Field>
        <Field id="user-role" label={t('admin.users.userRole')} help={seesRoles(view) ? undefined : t('admin.users.rolesHidden')}>
          <select id="user-role" name="user_role_id" {...fieldAttrs({ kind: 'int', errorKeys: 'user_role_id,role' })} required {...one.on('change', 'roleChanged')} {...fields}>
            {user ? null : <option value="">{t('admin.users.chooseRole')}</option>}
            {userRoles.map((r) => <option value={String(r.id)} selected={user?.user_role.id === r.id}>{r.name}</option>)}
          </select>
        </Field>
      </div>
      <Field id="user-list-role" label={t('admin.users.listRole')} help={t('admin.users.listRoleHelp')}>
        <select id="user-list-role" name="list_role_id" {...fieldAttrs({ kind: 'int' })} {...one.on('change', 'roleChanged')} {...fields}>
          <option value="">{t('admin.users.noListRole')}</option>
          {listRoles.map((r) => <option value={String(r.id)} selected={user?.list_role?.id === r.id}>{r.name}</option>)}
        </select>
      </Field>
      <p class="banner warn" {...one.show('listRoleIgnored')} x-cloak>{t('admin.users.listRoleIgnored')}</p>
      <div {...one.show('isLogin()')}>
        <div class="field">
          <label class="check-label"><input type="checkbox" name="password_login" value="true" {...fieldAttrs({ kind: 'bool' })} {...one.model('passwordLogin')} {...fields} /> {t('admin.users.passwordLogin')}</label>
          <p class="help">{t('admin.users.passwordLoginHelp')}</p>
        </div>
        <div class="grid2" {...one.show('passwordLogin')}>
          <Field id="user-password" label={user ? t('admin.users.newPasswordOptional') : t('users.password')} help={t('admin.users.passwordHelp', { n: PASSWORD_MIN })}>
            <input type="password" id="user-password" name="password" autocomplete="new-password" {...fieldAttrs({ omitEmpty: '' })} {...fields} />
          </Field>
          <Field id="user-password2" label={t('users.passwordRepeat')}>
            <input type="password" id="user-password2" name="password2" autocomplete="new-password" {...fields} />
          </Field>
        </div>
      </div>
      {/* Read-only for a user who may create users: this one holds more than they do. */}
      <FormEnd t={t} editable={editable} busy={one.attr('disabled', 'busy')} submit={user ? t('globals.buttons.saveChanges') : t('users.newUser')} cancel="/admin/users" readOnly={view.may('POST /api/users') ? t('admin.users.beyondYours') : t('admin.users.readOnly')} />
    </form>
  );
}

function newUserPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  return adminPage(c, s, {
    title: view.t('users.newUser'),
    body: (
      <div {...one.root()}>
        <a class="back" href="/admin/users">← {view.t('globals.terms.users')}</a>
        <PageHead title={view.t('users.newUser')} />
        <TokenPanel t={view.t} />
        <UserForm user={null} view={view} s={s} editable />
      </div>
    ),
  });
}

function userPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const user = s.userService.get(actor, pathId(c));
  const params = { id: user.id };
  const button = data<NamedButton>({ id: user.id, name: user.username });
  // The signed-in user's own account is not deleted from here (the API lets a caller delete
  // itself, as listmonk's does) and its 2FA is turned off on the profile page.
  const self = user.id === actor.id;
  return adminPage(c, s, {
    title: user.username,
    body: (
      <div {...one.root()}>
        <a class="back" href="/admin/users">← {t('globals.terms.users')}</a>
        <PageHead title={user.username}>
          {user.type === 'api' && view.may('POST /api/users/:id/token', params) ? <button type="button" class="secondary" {...button} {...one.on('click', 'regenerateToken')}>{t('admin.users.regenerateToken')}</button> : null}
          {!self && view.may('DELETE /api/users/:id', params) ? <button type="button" class="danger" {...button} {...one.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button> : null}
        </PageHead>
        <div class="ids">
          <span>{t('globals.fields.id')}: <code>{user.id}</code> <CopyButton value={String(user.id)} label={t('globals.fields.id')} t={t} /></span>
          <span><UserTags user={user} t={t} /></span>
          <span>{t('globals.fields.createdAt')}: <Time value={user.created_at} /></span>
          <span>{t('admin.users.lastLogin')}: <Time value={user.loggedin_at} /></span>
        </div>
        {!self && user.twofa_type === 'totp' && view.may('DELETE /api/users/:id/twofa', params) ? <TwofaOff user={user} t={t} /> : null}
        <TokenPanel t={t} />
        <UserForm user={user} view={view} s={s} editable={view.may('PUT /api/users/:id', params)} />
      </div>
    ),
  });
}

/** What differs between the two kinds of role on their pages. */
const ROLE_KINDS = {
  users: { title: 'users.userRoles', newTitle: 'users.newUserRole', help: 'admin.roles.userRolesHelp', column: 'admin.roles.permissions', none: 'admin.roles.noUserRoles' },
  lists: { title: 'users.listRoles', newTitle: 'users.newListRole', help: 'admin.roles.listRolesHelp', column: 'globals.terms.lists', none: 'admin.roles.noListRoles' },
} as const;
type RoleKind = keyof typeof ROLE_KINDS;

interface RoleRow {
  id: number;
  name: string;
  updated_at: string;
  /** What the role gives: its permissions, or its lists with their grants. */
  gives: JSX.Element;
}

/** The table of a kind of role: name, what it gives, last change; edit, clone and delete for the roles the user may edit. */
function rolesPage(c: AdminContext, s: Deps, kind: RoleKind, rows: RoleRow[]): Response {
  const view = adminView(c, s);
  const { t } = view;
  const k = ROLE_KINDS[kind];
  // A role's actions are offered when the user may save it: not the Super Admin role, and
  // nothing beyond the user's own permissions.
  const edits = (id: number) => view.may(`PUT /api/roles/${kind}/:id`, { id });
  return adminPage(c, s, {
    title: t(k.title),
    body: (
      <div {...roles.root()} {...data<RolesTable>({ kind })}>
        <PageHead title={t(k.title)} count={rows.length}>
          {view.may(`GET /admin/users/roles/${kind}/new`) ? <a class="button" href={`/admin/users/roles/${kind}/new`}>+ {t(k.newTitle)}</a> : null}
        </PageHead>
        <p class="help">{t(k.help)}</p>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('globals.fields.name')}</th>
                <th scope="col">{t(k.column)}</th>
                <th scope="col" class="hide-narrow">{t('globals.fields.updatedAt')}</th>
                <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 ? <tr><td colspan={4} class="empty">{t(k.none)}</td></tr> : rows.map((r) => (
                <tr>
                  <td><a href={`/admin/users/roles/${kind}/${r.id}`}><strong>{r.name}</strong></a></td>
                  <td class="small">{r.gives}</td>
                  <td class="hide-narrow"><Time value={r.updated_at} /></td>
                  <td>
                    {edits(r.id) ? (
                      <div class="row-actions">
                        <a href={`/admin/users/roles/${kind}/${r.id}`}>{t('globals.buttons.edit')}</a>
                        {view.may(`POST /api/roles/${kind}`) ? <button type="button" class="link" {...data<NamedButton>({ id: r.id, name: r.name })} {...roles.on('click', 'cloneOne')}>{t('globals.buttons.clone')}</button> : null}
                        {view.may('DELETE /api/roles/:id', { id: r.id }) ? <button type="button" class="link" {...data<NamedButton>({ id: r.id, name: r.name })} {...roles.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button> : null}
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {kind === 'users' ? <PermissionReach t={t} /> : null}
      </div>
    ),
  });
}

/** Under the user roles: what the permissions that reach beyond their name allow, and what is the Super Admin's alone. */
function PermissionReach({ t }: { t: Translate }): JSX.Element {
  return (
    <section class="card reach" aria-labelledby="reach-title">
      <h2 id="reach-title">{t('admin.roles.reachTitle')}</h2>
      <ul>
        {Object.entries(PERMISSION_NOTES).map(([p, note]) => <li data-reach={p}><code>{p}</code>: {t(note)}</li>)}
      </ul>
      <p class="help">{t('admin.roles.superAdminOnly')}</p>
    </section>
  );
}

/** A role's own page, or the form for a new one (`role` null). */
function rolePage(c: AdminContext, s: Deps, kind: RoleKind, role: { name: string } | null, form: JSX.Element): Response {
  const { t } = adminView(c, s);
  const k = ROLE_KINDS[kind];
  const title = role ? role.name : t(k.newTitle);
  return adminPage(c, s, {
    title,
    body: (
      <>
        <a class="back" href={`/admin/users/roles/${kind}`}>← {t(k.title)}</a>
        <PageHead title={title} />
        {form}
      </>
    ),
  });
}

// ---- user roles ------------------------------------------------------------------------------

function userRolesPage(c: AdminContext, s: Deps) {
  const { t, actor } = adminView(c, s);
  return rolesPage(c, s, 'users', s.userService.userRoles(actor).map((r) => ({
    ...r,
    gives: r.id === SUPER_ADMIN_ROLE_ID ? <Tag tone="accent">{t('admin.roles.everything')}</Tag>
      : r.permissions.length === 0 ? <span class="muted">—</span>
      : <>{r.permissions.map((p) => <Tag tone={POWERFUL.has(p) ? 'danger' : undefined}>{p}</Tag>)}</>,
  })));
}

/** Why a role's form cannot be saved: the user may not create roles, or (when they may) this one gives more than they have. */
function readOnlyRole({ t, may }: AdminView, kind: RoleKind): string {
  return may(`POST /api/roles/${kind}`) ? t('admin.roles.beyondYours') : t('admin.roles.readOnly');
}

function UserRoleForm({ role, view, editable }: { role: UserRoleJson | null; view: AdminView; editable: boolean }): JSX.Element {
  const { t } = view;
  const superAdmin = role?.id === SUPER_ADMIN_ROLE_ID;
  const held = new Set(superAdmin ? PERMISSION_GROUPS.flatMap((g) => g.permissions) : role?.permissions ?? []);
  const fields = { disabled: !editable };
  const after = { done: '/admin/users/roles/users', flash: role ? t('admin.saved') : t('admin.roles.created') };
  return (
    <form class="card" id="role-form" {...(role ? apiFormAttrs('PUT /api/roles/users/:id', { id: role.id }, after) : apiFormAttrs('POST /api/roles/users', {}, after))}>
      <Field id="role-name" label={t('globals.fields.name')}>
        <input type="text" id="role-name" name="name" value={role?.name ?? ''} required maxlength={200} {...fields} />
      </Field>
      <h2>{t('admin.roles.permissions')}</h2>
      <p class="field-error" data-error-for="role-permissions" role="alert"></p>
      <div class="perm-groups" {...matrix.root()}>
        {PERMISSION_GROUPS.map((g) => (
          <fieldset {...data<PermissionGroupData>({ group: g.group })} {...matrix.on('change', 'sync')}>
            <legend>{t(`admin.roles.group.${g.group}`)}</legend>
            <label class="check-label all"><input type="checkbox" {...data<GroupAllBox>({ all: g.group })} {...matrix.on('change', 'toggleGroup')} {...fields} /> {t('admin.roles.selectAll', { group: t(`admin.roles.group.${g.group}`) })}</label>
            {g.permissions.map((p, i) => (
              <div>
                <label class="check-label">
                  <input type="checkbox" name="permissions" value={p} {...fieldAttrs({ kind: 'strings' })} id={i === 0 && g.group === 'lists' ? 'role-permissions' : undefined} checked={held.has(p)} {...fields} />
                  <code>{p}</code>
                  {POWERFUL.has(p) ? <Tag tone="danger">{t('admin.roles.powerful')}</Tag> : null}
                </label>
                {PERMISSION_NOTES[p] ? <p class={POWERFUL.has(p) ? 'help danger-text' : 'help'} data-note-for={p}>{t(PERMISSION_NOTES[p])}{PERMISSION_GUIDES[p] ? <> <HelpLink topic={PERMISSION_GUIDES[p]} t={t} /></> : null}</p> : null}
              </div>
            ))}
          </fieldset>
        ))}
      </div>
      <FormEnd t={t} editable={editable} busy={formBusy()} submit={role ? t('globals.buttons.saveChanges') : t('users.newUserRole')} cancel="/admin/users/roles/users" readOnly={superAdmin ? t('admin.roles.superAdminFixed') : readOnlyRole(view, 'users')} />
    </form>
  );
}

function newUserRolePage(c: AdminContext, s: Deps) {
  return rolePage(c, s, 'users', null, <UserRoleForm role={null} view={adminView(c, s)} editable />);
}

function userRolePage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const id = pathId(c);
  const role = s.userService.userRoles(view.actor).find((r) => r.id === id);
  if (!role) throw notFound(`user role ${id} not found`);
  return rolePage(c, s, 'users', role, <UserRoleForm role={role} view={view} editable={view.may('PUT /api/roles/users/:id', { id })} />);
}

// ---- list roles ------------------------------------------------------------------------------

function listRolesPage(c: AdminContext, s: Deps) {
  const { t, actor } = adminView(c, s);
  return rolesPage(c, s, 'lists', s.userService.listRoles(actor).map((r) => ({
    ...r,
    gives: <>{r.lists.map((l) => <div>{l.name}: {l.permissions.map((p) => <Tag>{p === LIST_MANAGE ? t('admin.roles.manage') : t('admin.roles.get')}</Tag>)}</div>)}</>,
  })));
}

function ListRoleForm({ role, view, s, editable }: { role: ListRoleJson | null; view: AdminView; s: Deps; editable: boolean }): JSX.Element {
  const { t, actor } = view;
  // Archived lists are left out of list pickers (the spec's list status); grants on them stay shown.
  const { results } = s.lists.query(actor, { search: '', status: 'active', tags: [], orderBy: 'l.name', order: 'ASC', limit: -1, offset: 0, minimal: true });
  const lists = results.map((l) => ({ id: l.id, name: l.name }));
  const grants = (role?.lists ?? []).map((l) => ({ id: l.id, name: l.name, get: l.permissions.includes(LIST_GET), manage: l.permissions.includes(LIST_MANAGE) }));
  const after = { done: '/admin/users/roles/lists', flash: role ? t('admin.saved') : t('admin.roles.created') };
  const rows = listRole.list('rows', 'row');
  const choices = listRole.list('available()', 'l');
  return (
    <form
      {...listRole.root()} {...listRole.on('submit', 'submit')} class="card" id="list-role-form"
      {...(role ? apiTarget('PUT /api/roles/lists/:id', { id: role.id }, after) : apiTarget('POST /api/roles/lists', {}, after))}
    >
      <PageData<ListRoleData> id="list-role-data" value={{ lists, grants, labels: { get: t('admin.roles.get'), manage: t('admin.roles.manage'), remove: t('globals.buttons.remove') } }} />
      <Field id="list-role-name" label={t('globals.fields.name')}>
        <input type="text" id="list-role-name" name="name" value={role?.name ?? ''} required maxlength={200} disabled={!editable} />
      </Field>
      <p class="banner">{t('admin.roles.listsAllNote', { perms: LISTS_ALL.join(', ') })}</p>
      <h2>{t('globals.terms.lists')}</h2>
      <p class="field-error" data-error-for="list-role-lists" role="alert"></p>
      <div class="table-wrap">
        <table id="list-role-lists">
          <thead>
            <tr>
              <th scope="col">{t('globals.terms.list')}</th>
              <th scope="col">{t('admin.roles.get')} <code class="small hide-narrow">{LIST_GET}</code></th>
              <th scope="col">{t('admin.roles.manage')} <code class="small hide-narrow">{LIST_MANAGE}</code></th>
              <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
            </tr>
          </thead>
          <tbody>
            <tr {...listRole.show('noRows()')}><td colspan={4} class="empty">{t('admin.roles.noListsYet')}</td></tr>
            <template {...rows.each('id')}>
              <tr>
                <td {...rows.text('name')}></td>
                <td><input type="checkbox" {...rows.attr('checked', 'get')} {...rows.attr('aria-label', 'getLabel')} {...rows.on('change', 'setGet')} disabled={!editable} /></td>
                <td><input type="checkbox" {...rows.attr('checked', 'manage')} {...rows.attr('aria-label', 'manageLabel')} {...rows.on('change', 'setManage')} disabled={!editable} /></td>
                <td>{editable ? <button type="button" class="link" {...rows.attr('aria-label', 'removeLabel')} {...rows.on('click', 'removeRow', 'id')}>{t('globals.buttons.remove')}</button> : null}</td>
              </tr>
            </template>
          </tbody>
        </table>
      </div>
      {editable ? (
        <fieldset class="add-list">
          <legend>{t('admin.roles.addList')}</legend>
          <div class="toolbar">
            <div class="grow">
              <label for="list-filter">{t('admin.roles.findList')}</label>
              <input type="search" id="list-filter" {...listRole.model('filter')} placeholder={t('admin.roles.findListPlaceholder')} autocomplete="off" />
            </div>
            <div class="grow">
              <label for="list-choice">{t('globals.terms.list')}</label>
              <select id="list-choice" {...listRole.model('choice')}>
                <option value="">{t('admin.roles.chooseList')}</option>
                <template {...choices.each('id')}>
                  <option {...choices.attr('value', 'id')} {...choices.text('name')}></option>
                </template>
              </select>
            </div>
            <button type="button" class="secondary" {...listRole.on('click', 'addRow')} {...listRole.attr('disabled', 'noChoice()')}>{t('globals.buttons.add')}</button>
          </div>
        </fieldset>
      ) : null}
      <FormEnd t={t} editable={editable} busy={listRole.attr('disabled', 'busy')} submit={role ? t('globals.buttons.saveChanges') : t('users.newListRole')} cancel="/admin/users/roles/lists" readOnly={readOnlyRole(view, 'lists')} />
    </form>
  );
}

function newListRolePage(c: AdminContext, s: Deps) {
  return rolePage(c, s, 'lists', null, <ListRoleForm role={null} view={adminView(c, s)} s={s} editable />);
}

function listRolePage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const id = pathId(c);
  const role = s.userService.listRoles(view.actor).find((r) => r.id === id);
  if (!role) throw notFound(`list role ${id} not found`);
  return rolePage(c, s, 'lists', role, <ListRoleForm role={role} view={view} s={s} editable={view.may('PUT /api/roles/lists/:id', { id })} />);
}

// ---- the signed-in user's profile ------------------------------------------------------------

function profilePage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const me = s.userService.profile(actor);
  const withPassword = me.type === 'user' && me.password_login;
  const totpOn = me.twofa_type === 'totp';
  return adminPage(c, s, {
    title: t('admin.profile.title'),
    body: (
      <>
        <PageHead title={t('admin.profile.title')} />
        <div class="ids">
          <span>{t('users.username')}: <strong>{me.username}</strong></span>
          <span>{t('admin.users.userRole')}: {me.user_role.name}</span>
          {me.list_role ? <span>{t('admin.users.listRole')}: {me.list_role.name}</span> : null}
        </div>
        <form
          {...profile.root()} {...profile.on('submit', 'submit')} class="card" id="profile-form"
          {...apiTarget('PUT /api/profile', {}, { flash: t('admin.saved') })} {...data<ProfileFormData>({ flashPassword: t('admin.profile.passwordChanged') })}
        >
          <h2>{t('admin.profile.details')}</h2>
          <Field id="profile-name" label={t('globals.fields.name')}>
            <input type="text" id="profile-name" name="name" value={me.name} required maxlength={200} autocomplete="name" />
          </Field>
          <Field id="profile-email" label={t('subscribers.email')} help={withPassword ? undefined : t('admin.profile.emailFixed')}>
            <input type="email" id="profile-email" name="email" value={me.email ?? ''} autocomplete="email" disabled={!withPassword} />
          </Field>
          {withPassword ? (
            <>
              <h2>{t('admin.profile.changePassword')}</h2>
              <p class="help">{t('admin.profile.passwordEndsSessions')}</p>
              <div class="grid2">
                <Field id="profile-password" label={t('users.newPassword')} help={t('admin.profile.passwordHelp', { n: PASSWORD_MIN })}>
                  <input type="password" id="profile-password" name="password" autocomplete="new-password" {...fieldAttrs({ omitEmpty: '' })} />
                </Field>
                <Field id="profile-password2" label={t('users.passwordRepeat')}>
                  <input type="password" id="profile-password2" name="password2" autocomplete="new-password" />
                </Field>
              </div>
              <Field id="profile-current" label={t('admin.profile.currentPassword')} help={t('admin.profile.currentPasswordHelp')}>
                <input type="password" id="profile-current" name="current_password" autocomplete="current-password" {...fieldAttrs({ omitEmpty: '', errorKeys: 'current_password,current' })} />
              </Field>
            </>
          ) : null}
          <p class="alert" data-error-for="_form" role="alert"></p>
          <div class="actions"><button type="submit" {...profile.attr('disabled', 'busy')}>{t('globals.buttons.saveChanges')}</button></div>
        </form>
        <section class="card" {...twofa.root()} {...data<TwofaData>({ id: me.id })} aria-labelledby="twofa-title">
          <h2 id="twofa-title">{t('users.twoFA')}</h2>
          {!withPassword ? <p class="muted">{t('admin.profile.twofaNeedsPassword')}</p> : totpOn ? (
            <>
              <p><Tag tone="accent">{t('admin.profile.twofaIsOn')}</Tag> {t('admin.profile.twofaOnHelp')}</p>
              <form id="twofa-off" {...twofa.on('submit', 'disable')}>
                <Field id="twofa-password" label={t('admin.profile.twofaOffPassword')}>
                  <input type="password" id="twofa-password" name="password" autocomplete="current-password" required />
                </Field>
                <p class="alert" data-error-for="_form" role="alert"></p>
                <div class="actions"><button type="submit" class="danger" {...twofa.attr('disabled', 'busy')}>{t('admin.profile.twofaOff')}</button></div>
              </form>
            </>
          ) : (
            <>
              <p>{t('admin.profile.twofaIsOff')}</p>
              <div class="actions" {...twofa.show('notEnrolling()')}><button type="button" {...twofa.on('click', 'start')} {...twofa.attr('disabled', 'busy')}>{t('admin.profile.twofaStart')}</button></div>
              <p class="alert" role="alert" {...twofa.text('startError')} {...twofa.show('startError')}></p>
              <div class="enrol" {...twofa.show('enrolling')} x-cloak>
                <ol>
                  <li>{t('admin.profile.twofaStep1')}</li>
                  <li>{t('admin.profile.twofaStep2')}</li>
                </ol>
                <img class="qr" {...twofa.attr('src', 'qrSrc')} width="200" height="200" alt={t('admin.profile.qrAlt')} />
                <p>{t('admin.profile.secretText')} <code class="secret" {...twofa.text('secret')}></code></p>
              </div>
              <form id="twofa-on" {...twofa.show('enrolling')} x-cloak {...twofa.on('submit', 'confirm')}>
                <Field id="twofa-code" label={t('users.totpCode')} help={t('users.totpCodeHelp')}>
                  <input type="text" id="twofa-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
                </Field>
                <Field id="twofa-on-password" label={t('admin.profile.twofaOnPassword')} help={t('admin.profile.twofaOnPasswordHelp')}>
                  <input type="password" id="twofa-on-password" name="password" autocomplete="current-password" required />
                </Field>
                <p class="alert" data-error-for="_form" role="alert"></p>
                <div class="actions">
                  <button type="submit" {...twofa.attr('disabled', 'busy')}>{t('admin.profile.twofaConfirm')}</button>
                  <button type="button" class="secondary" {...twofa.on('click', 'cancel')}>{t('globals.buttons.cancel')}</button>
                </div>
              </form>
            </>
          )}
        </section>
      </>
    ),
  });
}
