// The admin's pages for users, roles and the signed-in user's own profile: the users table
// (/admin/users) and a user's page (/admin/users/:id, `new` creates), the user roles and list
// roles (/admin/users/roles/{users,lists}[/new|/:id]) and /admin/profile. Reads go through the
// users service with the signed-in user; every change is a call to /api from the page's script.
// No page ever holds a password, an API token or a TOTP secret: a new token and an enrolment
// secret reach the browser only as the answer to the call that makes them.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminView } from '../admin/page.tsx';
import { CopyButton, Field, PageData, PageHead, SearchToolbar, Tag, Time } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { HelpLink } from '../help/link.tsx';
import { notFound } from '../core/errors.ts';
import { can, LIST_PERMISSIONS, PERMISSION_GROUPS, SUPER_ADMIN_ROLE_ID } from '../core/authz.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { pathId, q, z } from '../http/schema.ts';
import type { Services } from '../services.ts';
import { PASSWORD_MIN } from './rules.ts';
import type { ListRoleJson, UserJson, UserRoleJson } from './store.ts';

const route = routesFor<Services>();
// Static paths before `:id`.
export const USER_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/users', access: 'users:get', handler: usersPage, query: usersPageQuery, raw: 'text/html', summary: 'The users' }),
  route({ method: 'GET', path: '/admin/users/new', access: 'users:manage', handler: newUserPage, raw: 'text/html', summary: 'A form for a new user' }),
  route({ method: 'GET', path: '/admin/users/roles/users', access: 'roles:get', handler: userRolesPage, raw: 'text/html', summary: 'The user roles' }),
  route({ method: 'GET', path: '/admin/users/roles/users/new', access: 'roles:manage', handler: newUserRolePage, raw: 'text/html', summary: 'A form for a new user role' }),
  route({ method: 'GET', path: '/admin/users/roles/users/:id', access: 'roles:get', handler: userRolePage, raw: 'text/html', summary: 'One user role' }),
  route({ method: 'GET', path: '/admin/users/roles/lists', access: 'roles:get', handler: listRolesPage, raw: 'text/html', summary: 'The list roles' }),
  route({ method: 'GET', path: '/admin/users/roles/lists/new', access: 'roles:manage', handler: newListRolePage, raw: 'text/html', summary: 'A form for a new list role' }),
  route({ method: 'GET', path: '/admin/users/roles/lists/:id', access: 'roles:get', handler: listRolePage, raw: 'text/html', summary: 'One list role' }),
  route({ method: 'GET', path: '/admin/users/:id', access: 'users:get', handler: userPage, raw: 'text/html', summary: 'One user' }),
  route({ method: 'GET', path: '/admin/profile', access: 'signed-in', handler: profilePage, raw: 'text/html', summary: 'The signed-in user\'s own profile and two-factor sign-in' }),
];

/** The page's filters are read leniently: a value it does not know is no filter. */
function usersPageQuery() {
  const str = () => q.first({ type: 'string' }, (v) => v?.trim() ?? '');
  return z.object({ query: str(), status: str() });
}

const STATUS_FILTERS = ['all', 'enabled', 'disabled'] as const;
const LISTS_ALL = ['lists:get_all', 'lists:manage_all'];

/** The end of a form: where a refusal not about one field is shown, then Save and Cancel, or why it is read-only. */
function FormEnd({ t, editable, submit, cancel, readOnly }: { t: AdminView['t']; editable: boolean; submit: string; cancel: string; readOnly: string }): JSX.Element {
  return (
    <>
      <p class="alert" data-error-for="_form" role="alert"></p>
      {editable ? (
        <div class="actions">
          <button type="submit" x-bind:disabled="busy">{submit}</button>
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

function usersPage(c: AdminContext, s: Services, { query: p }: Input<undefined, ReturnType<typeof usersPageQuery>>) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const status = (STATUS_FILTERS as readonly string[]).includes(p.status) ? p.status : 'all';
  const needle = p.query.toLowerCase();
  const all = s.userService.list(actor);
  const users = all.filter((u) => (status === 'all' || u.status === status)
    && (!needle || [u.username, u.name, u.email ?? ''].some((v) => v.toLowerCase().includes(needle))));
  const manages = can(actor, 'users:manage');
  const changeable = (u: UserJson) => s.userService.mayChangeUser(actor, u);
  return adminPage(c, s, {
    title: t('globals.terms.users'),
    body: (
      <div x-data="usersPage">
        <PageHead title={t('globals.terms.users')} count={users.length}>
          {manages ? <a class="button" href="/admin/users/new">+ {t('users.newUser')}</a> : null}
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
              {users.length === 0 ? (
                <tr><td colspan={7} class="empty">{t('admin.users.noMatch')}</td></tr>
              ) : users.map((u) => (
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
                    {changeable(u) ? (
                      <div class="row-actions">
                        <a href={`/admin/users/${u.id}`}>{t('globals.buttons.edit')}</a>
                        <button type="button" class="link" data-id={String(u.id)} data-name={u.username} data-status={u.status === 'enabled' ? 'disabled' : 'enabled'} x-on:click="setStatus">
                          {u.status === 'enabled' ? t('admin.users.disable') : t('admin.users.enable')}
                        </button>
                        {u.id === actor.id ? null : <button type="button" class="link" data-id={String(u.id)} data-name={u.username} x-on:click="deleteOne">{t('globals.buttons.delete')}</button>}
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

/** The roles a user form offers: all of them for roles:get, else only the user's own. */
function roleChoices(view: AdminView, s: Services, user: UserJson | null): { userRoles: { id: number; name: string; permissions: string[] }[]; listRoles: { id: number; name: string }[] } {
  if (can(view.actor, 'roles:get')) return { userRoles: s.userService.userRoles(view.actor), listRoles: s.userService.listRoles(view.actor) };
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
          type="button" class="danger" x-on:click="disableTwofa" data-id={String(user.id)}
          data-confirm={t('admin.users.twofaOffConfirm', { name: user.username })} data-password-label={t('admin.users.twofaOffPassword')}
          data-done={t('admin.users.twofaOffDone', { name: user.username })}
        >{t('admin.profile.twofaOff')}</button>
      </div>
    </section>
  );
}

/** Where a new API token is shown, once: filled by the page's script from the API's answer. */
function TokenPanel({ t }: { t: AdminView['t'] }): JSX.Element {
  return (
    <section class="card token" x-show="hasToken()" x-cloak aria-labelledby="token-title">
      <h2 id="token-title">{t('admin.users.tokenTitle')}</h2>
      <p class="banner warn" role="alert" x-show="hasToken()">{t('admin.users.tokenOnce')}</p>
      <label for="api-token">{t('admin.users.token')}</label>
      <input type="text" id="api-token" class="mono" readonly x-bind:value="token" />
      <p class="help">{t('admin.users.tokenUse')}</p>
      <div class="actions">
        <button type="button" class="secondary" x-data="copy" x-bind:data-copy="token" x-on:click="copy">{t('admin.users.copyToken')}</button>
        <a class="button" x-bind:href="doneUrl">{t('admin.users.tokenDone')}</a>
      </div>
    </section>
  );
}

function UserForm({ user, view, s, editable }: { user: UserJson | null; view: AdminView; s: Services; editable: boolean }): JSX.Element {
  const { t, actor } = view;
  const fields = { disabled: !editable };
  const { userRoles, listRoles } = roleChoices(view, s, user);
  const type = user?.type ?? 'user';
  return (
    <form
      x-show="formShown()" x-on:submit="submit" class="card" id="user-form"
      data-method={user ? 'PUT' : 'POST'} data-action={user ? `/api/users/${user.id}` : '/api/users'}
      data-done={user ? `/admin/users/${user.id}` : '/admin/users/{id}'} data-flash={user ? t('admin.saved') : t('admin.users.created')}
      data-type={type} data-password-login={String(user ? user.password_login : true)}
    >
      <PageData id="user-roles" value={userRoles.map((r) => ({ id: r.id, all: r.id === SUPER_ADMIN_ROLE_ID || r.permissions.some((p) => LISTS_ALL.includes(p)) }))} />
      <fieldset>
        <legend>{t('globals.fields.type')}</legend>
        <label class="check-label"><input type="radio" name="type" value="user" x-model="type" checked={type === 'user'} disabled={!!user || !editable} /> {t('admin.users.typeLoginLong')}</label>
        <label class="check-label"><input type="radio" name="type" value="api" x-model="type" checked={type === 'api'} disabled={!!user || !editable} /> {t('admin.users.typeApiLong')}</label>
        {user ? <p class="help">{t('admin.users.typeLocked')}</p> : null}
      </fieldset>
      <div class="grid2">
        <Field id="user-username" label={t('users.username')} help={t('admin.users.usernameHelp')}>
          <input type="text" id="user-username" name="username" value={user?.username ?? ''} required maxlength={200} autocomplete="off" {...fields} />
        </Field>
        <Field id="user-name" label={t('globals.fields.name')}>
          <input type="text" id="user-name" name="name" value={user?.name ?? ''} maxlength={200} data-omit-empty {...fields} />
        </Field>
      </div>
      <div x-show="isLogin()">
        <Field id="user-email" label={t('subscribers.email')}>
          <input type="email" id="user-email" name="email" value={user?.email ?? ''} autocomplete="off" data-omit-empty {...fields} />
        </Field>
      </div>
      <div class="grid2">
        <Field id="user-status" label={t('globals.fields.status')}>
          <select id="user-status" name="status" {...fields}>
            {(['enabled', 'disabled'] as const).map((v) => <option value={v} selected={(user?.status ?? 'enabled') === v}>{t(`admin.users.status.${v}`)}</option>)}
          </select>
        </Field>
        <Field id="user-role" label={t('admin.users.userRole')} help={can(actor, 'roles:get') ? undefined : t('admin.users.rolesHidden')}>
          <select id="user-role" name="user_role_id" data-kind="int" data-error-keys="user_role_id,role" required x-on:change="roleChanged" {...fields}>
            {user ? null : <option value="">{t('admin.users.chooseRole')}</option>}
            {userRoles.map((r) => <option value={String(r.id)} selected={user?.user_role.id === r.id}>{r.name}</option>)}
          </select>
        </Field>
      </div>
      <Field id="user-list-role" label={t('admin.users.listRole')} help={t('admin.users.listRoleHelp')}>
        <select id="user-list-role" name="list_role_id" data-kind="int" x-on:change="roleChanged" {...fields}>
          <option value="">{t('admin.users.noListRole')}</option>
          {listRoles.map((r) => <option value={String(r.id)} selected={user?.list_role?.id === r.id}>{r.name}</option>)}
        </select>
      </Field>
      <p class="banner warn" x-show="listRoleIgnored" x-cloak>{t('admin.users.listRoleIgnored')}</p>
      <div x-show="isLogin()">
        <div class="field">
          <label class="check-label"><input type="checkbox" name="password_login" value="true" data-kind="bool" x-model="passwordLogin" {...fields} /> {t('admin.users.passwordLogin')}</label>
          <p class="help">{t('admin.users.passwordLoginHelp')}</p>
        </div>
        <div class="grid2" x-show="passwordLogin">
          <Field id="user-password" label={user ? t('admin.users.newPasswordOptional') : t('users.password')} help={t('admin.users.passwordHelp', { n: PASSWORD_MIN })}>
            <input type="password" id="user-password" name="password" autocomplete="new-password" data-omit-empty {...fields} />
          </Field>
          <Field id="user-password2" label={t('users.passwordRepeat')}>
            <input type="password" id="user-password2" name="password2" autocomplete="new-password" {...fields} />
          </Field>
        </div>
      </div>
      <FormEnd t={t} editable={editable} submit={user ? t('globals.buttons.saveChanges') : t('users.newUser')} cancel="/admin/users" readOnly={can(actor, 'users:manage') ? t('admin.users.beyondYours') : t('admin.users.readOnly')} />
    </form>
  );
}

function newUserPage(c: AdminContext, s: Services) {
  const view = adminView(c, s);
  return adminPage(c, s, {
    title: view.t('users.newUser'),
    body: (
      <div x-data="userPage">
        <a class="back" href="/admin/users">← {view.t('globals.terms.users')}</a>
        <PageHead title={view.t('users.newUser')} />
        <TokenPanel t={view.t} />
        <UserForm user={null} view={view} s={s} editable />
      </div>
    ),
  });
}

function userPage(c: AdminContext, s: Services) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const user = s.userService.get(actor, pathId(c));
  const manages = s.userService.mayChangeUser(actor, user);
  // The signed-in user's own account is not deleted from here (the API lets a caller delete
  // itself, as listmonk's does) and its 2FA is turned off on the profile page.
  const self = user.id === actor.id;
  return adminPage(c, s, {
    title: user.username,
    body: (
      <div x-data="userPage">
        <a class="back" href="/admin/users">← {t('globals.terms.users')}</a>
        <PageHead title={user.username}>
          {manages && user.type === 'api' ? <button type="button" class="secondary" data-id={String(user.id)} data-name={user.username} x-on:click="regenerateToken">{t('admin.users.regenerateToken')}</button> : null}
          {manages && !self ? <button type="button" class="danger" data-id={String(user.id)} data-name={user.username} x-on:click="deleteOne">{t('globals.buttons.delete')}</button> : null}
        </PageHead>
        <div class="ids">
          <span>{t('globals.fields.id')}: <code>{user.id}</code> <CopyButton value={String(user.id)} label={t('globals.fields.id')} t={t} /></span>
          <span><UserTags user={user} t={t} /></span>
          <span>{t('globals.fields.createdAt')}: <Time value={user.created_at} /></span>
          <span>{t('admin.users.lastLogin')}: <Time value={user.loggedin_at} /></span>
        </div>
        {manages && !self && user.twofa_type === 'totp' ? <TwofaOff user={user} t={t} /> : null}
        <TokenPanel t={t} />
        <UserForm user={user} view={view} s={s} editable={manages} />
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
  /** Whether the signed-in user may edit, clone or delete it. */
  changeable: boolean;
}

/** The table of a kind of role: name, what it gives, last change; edit, clone and delete for roles:manage. */
function rolesPage(c: AdminContext, s: Services, kind: RoleKind, rows: RoleRow[]): Response {
  const { t, actor } = adminView(c, s);
  const k = ROLE_KINDS[kind];
  const manages = can(actor, 'roles:manage');
  return adminPage(c, s, {
    title: t(k.title),
    body: (
      <div x-data="rolesPage" data-kind={kind}>
        <PageHead title={t(k.title)} count={rows.length}>
          {manages ? <a class="button" href={`/admin/users/roles/${kind}/new`}>+ {t(k.newTitle)}</a> : null}
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
                    {r.changeable ? (
                      <div class="row-actions">
                        <a href={`/admin/users/roles/${kind}/${r.id}`}>{t('globals.buttons.edit')}</a>
                        <button type="button" class="link" data-id={String(r.id)} data-name={r.name} x-on:click="cloneOne">{t('globals.buttons.clone')}</button>
                        <button type="button" class="link" data-id={String(r.id)} data-name={r.name} x-on:click="deleteOne">{t('globals.buttons.delete')}</button>
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
function rolePage(c: AdminContext, s: Services, kind: RoleKind, role: { name: string } | null, form: JSX.Element): Response {
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

function userRolesPage(c: AdminContext, s: Services) {
  const { t, actor } = adminView(c, s);
  return rolesPage(c, s, 'users', s.userService.userRoles(actor).map((r) => ({
    ...r,
    changeable: s.userService.mayChangeRole(actor, r),
    gives: r.id === SUPER_ADMIN_ROLE_ID ? <Tag tone="accent">{t('admin.roles.everything')}</Tag>
      : r.permissions.length === 0 ? <span class="muted">—</span>
      : <>{r.permissions.map((p) => <Tag tone={POWERFUL.has(p) ? 'danger' : undefined}>{p}</Tag>)}</>,
  })));
}

/** Why a role's form cannot be saved: no roles:manage, or permissions beyond the signed-in user's. */
function readOnlyRole({ t, actor }: AdminView): string {
  return can(actor, 'roles:manage') ? t('admin.roles.beyondYours') : t('admin.roles.readOnly');
}

/** Permissions that reach far beyond their name, marked on the role form. */
const POWERFUL = new Set(['subscribers:sql_query', 'settings:manage']);
/** What a permission reaches, said under it on the role form (docs/security.md has the whole list). */
const PERMISSION_NOTES: Readonly<Record<string, string>> = {
  'subscribers:sql_query': 'admin.roles.sqlQueryWarning',
  'settings:manage': 'admin.roles.settingsManageNote',
  'settings:maintain': 'admin.roles.settingsMaintainNote',
};

function UserRoleForm({ role, view, editable }: { role: UserRoleJson | null; view: AdminView; editable: boolean }): JSX.Element {
  const { t } = view;
  const superAdmin = role?.id === SUPER_ADMIN_ROLE_ID;
  const held = new Set(superAdmin ? PERMISSION_GROUPS.flatMap((g) => g.permissions) : role?.permissions ?? []);
  const fields = { disabled: !editable };
  return (
    <form
      x-data="apiForm" x-on:submit="submit" class="card" id="role-form"
      data-method={role ? 'PUT' : 'POST'} data-action={role ? `/api/roles/users/${role.id}` : '/api/roles/users'}
      data-done="/admin/users/roles/users" data-flash={role ? t('admin.saved') : t('admin.roles.created')}
    >
      <Field id="role-name" label={t('globals.fields.name')}>
        <input type="text" id="role-name" name="name" value={role?.name ?? ''} required maxlength={200} {...fields} />
      </Field>
      <h2>{t('admin.roles.permissions')}</h2>
      <p class="field-error" data-error-for="role-permissions" role="alert"></p>
      <div class="perm-groups" x-data="permissionMatrix">
        {PERMISSION_GROUPS.map((g) => (
          <fieldset data-group={g.group} x-on:change="sync">
            <legend>{t(`admin.roles.group.${g.group}`)}</legend>
            <label class="check-label all"><input type="checkbox" data-all={g.group} x-on:change="toggleGroup" {...fields} /> {t('admin.roles.selectAll', { group: t(`admin.roles.group.${g.group}`) })}</label>
            {g.permissions.map((p, i) => (
              <div>
                <label class="check-label">
                  <input type="checkbox" name="permissions" value={p} data-kind="strings" id={i === 0 && g.group === 'lists' ? 'role-permissions' : undefined} checked={held.has(p)} {...fields} />
                  <code>{p}</code>
                  {POWERFUL.has(p) ? <Tag tone="danger">{t('admin.roles.powerful')}</Tag> : null}
                </label>
                {PERMISSION_NOTES[p] ? <p class={POWERFUL.has(p) ? 'help danger-text' : 'help'} data-note-for={p}>{t(PERMISSION_NOTES[p])}{p === 'subscribers:sql_query' ? <> <HelpLink topic="segments" t={t} /></> : null}</p> : null}
              </div>
            ))}
          </fieldset>
        ))}
      </div>
      <FormEnd t={t} editable={editable} submit={role ? t('globals.buttons.saveChanges') : t('users.newUserRole')} cancel="/admin/users/roles/users" readOnly={superAdmin ? t('admin.roles.superAdminFixed') : readOnlyRole(view)} />
    </form>
  );
}

function newUserRolePage(c: AdminContext, s: Services) {
  return rolePage(c, s, 'users', null, <UserRoleForm role={null} view={adminView(c, s)} editable />);
}

function userRolePage(c: AdminContext, s: Services) {
  const view = adminView(c, s);
  const id = pathId(c);
  const role = s.userService.userRoles(view.actor).find((r) => r.id === id);
  if (!role) throw notFound(`user role ${id} not found`);
  return rolePage(c, s, 'users', role, <UserRoleForm role={role} view={view} editable={s.userService.mayChangeRole(view.actor, role)} />);
}

// ---- list roles ------------------------------------------------------------------------------

function listRolesPage(c: AdminContext, s: Services) {
  const { t, actor } = adminView(c, s);
  return rolesPage(c, s, 'lists', s.userService.listRoles(actor).map((r) => ({
    ...r,
    changeable: s.userService.mayChangeRole(actor, r),
    gives: <>{r.lists.map((l) => <div>{l.name}: {l.permissions.map((p) => <Tag>{p === 'list:manage' ? t('admin.roles.manage') : t('admin.roles.get')}</Tag>)}</div>)}</>,
  })));
}

function ListRoleForm({ role, view, s, editable }: { role: ListRoleJson | null; view: AdminView; s: Services; editable: boolean }): JSX.Element {
  const { t, actor } = view;
  // Archived lists are left out of list pickers (the spec's list status); grants on them stay shown.
  const { results } = s.lists.query(actor, { search: '', status: 'active', tags: [], orderBy: 'l.name', order: 'ASC', limit: -1, offset: 0, minimal: true });
  const lists = results.map((l) => ({ id: l.id, name: l.name }));
  const grants = (role?.lists ?? []).map((l) => ({ id: l.id, name: l.name, get: l.permissions.includes('list:get'), manage: l.permissions.includes('list:manage') }));
  return (
    <form
      x-data="listRoleForm" x-on:submit="submit" class="card" id="list-role-form"
      data-method={role ? 'PUT' : 'POST'} data-action={role ? `/api/roles/lists/${role.id}` : '/api/roles/lists'}
      data-flash={role ? t('admin.saved') : t('admin.roles.created')}
    >
      <PageData id="list-role-data" value={{ lists, grants, labels: { get: t('admin.roles.get'), manage: t('admin.roles.manage'), remove: t('globals.buttons.remove') } }} />
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
              <th scope="col">{t('admin.roles.get')} <code class="small hide-narrow">{LIST_PERMISSIONS[0]}</code></th>
              <th scope="col">{t('admin.roles.manage')} <code class="small hide-narrow">{LIST_PERMISSIONS[1]}</code></th>
              <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
            </tr>
          </thead>
          <tbody>
            <tr x-show="noRows()"><td colspan={4} class="empty">{t('admin.roles.noListsYet')}</td></tr>
            <template x-for="row in rows" x-bind:key="row.id">
              <tr>
                <td x-text="row.name"></td>
                <td><input type="checkbox" x-bind:checked="row.get" x-bind:data-id="row.id" data-perm="get" x-bind:aria-label="row.getLabel" x-on:change="setGrant" disabled={!editable} /></td>
                <td><input type="checkbox" x-bind:checked="row.manage" x-bind:data-id="row.id" data-perm="manage" x-bind:aria-label="row.manageLabel" x-on:change="setGrant" disabled={!editable} /></td>
                <td>{editable ? <button type="button" class="link" x-bind:data-id="row.id" x-bind:aria-label="row.removeLabel" x-on:click="removeRow">{t('globals.buttons.remove')}</button> : null}</td>
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
              <input type="search" id="list-filter" x-model="filter" placeholder={t('admin.roles.findListPlaceholder')} autocomplete="off" />
            </div>
            <div class="grow">
              <label for="list-choice">{t('globals.terms.list')}</label>
              <select id="list-choice" x-model="choice">
                <option value="">{t('admin.roles.chooseList')}</option>
                <template x-for="l in available()" x-bind:key="l.id">
                  <option x-bind:value="l.id" x-text="l.name"></option>
                </template>
              </select>
            </div>
            <button type="button" class="secondary" x-on:click="addRow" x-bind:disabled="noChoice()">{t('globals.buttons.add')}</button>
          </div>
        </fieldset>
      ) : null}
      <FormEnd t={t} editable={editable} submit={role ? t('globals.buttons.saveChanges') : t('users.newListRole')} cancel="/admin/users/roles/lists" readOnly={readOnlyRole(view)} />
    </form>
  );
}

function newListRolePage(c: AdminContext, s: Services) {
  return rolePage(c, s, 'lists', null, <ListRoleForm role={null} view={adminView(c, s)} s={s} editable />);
}

function listRolePage(c: AdminContext, s: Services) {
  const view = adminView(c, s);
  const id = pathId(c);
  const role = s.userService.listRoles(view.actor).find((r) => r.id === id);
  if (!role) throw notFound(`list role ${id} not found`);
  return rolePage(c, s, 'lists', role, <ListRoleForm role={role} view={view} s={s} editable={s.userService.mayChangeRole(view.actor, role)} />);
}

// ---- the signed-in user's profile ------------------------------------------------------------

function profilePage(c: AdminContext, s: Services) {
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
        <form x-data="profileForm" x-on:submit="submit" class="card" id="profile-form" data-flash={t('admin.saved')} data-flash-password={t('admin.profile.passwordChanged')}>
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
                  <input type="password" id="profile-password" name="password" autocomplete="new-password" data-omit-empty />
                </Field>
                <Field id="profile-password2" label={t('users.passwordRepeat')}>
                  <input type="password" id="profile-password2" name="password2" autocomplete="new-password" />
                </Field>
              </div>
              <Field id="profile-current" label={t('admin.profile.currentPassword')} help={t('admin.profile.currentPasswordHelp')}>
                <input type="password" id="profile-current" name="current_password" autocomplete="current-password" data-omit-empty data-error-keys="current_password,current" />
              </Field>
            </>
          ) : null}
          <p class="alert" data-error-for="_form" role="alert"></p>
          <div class="actions"><button type="submit" x-bind:disabled="busy">{t('globals.buttons.saveChanges')}</button></div>
        </form>
        <section class="card" x-data="twofa" data-id={String(me.id)} aria-labelledby="twofa-title">
          <h2 id="twofa-title">{t('users.twoFA')}</h2>
          {!withPassword ? <p class="muted">{t('admin.profile.twofaNeedsPassword')}</p> : totpOn ? (
            <>
              <p><Tag tone="accent">{t('admin.profile.twofaIsOn')}</Tag> {t('admin.profile.twofaOnHelp')}</p>
              <form id="twofa-off" x-on:submit="disable">
                <Field id="twofa-password" label={t('admin.profile.twofaOffPassword')}>
                  <input type="password" id="twofa-password" name="password" autocomplete="current-password" required />
                </Field>
                <p class="alert" data-error-for="_form" role="alert"></p>
                <div class="actions"><button type="submit" class="danger" x-bind:disabled="busy">{t('admin.profile.twofaOff')}</button></div>
              </form>
            </>
          ) : (
            <>
              <p>{t('admin.profile.twofaIsOff')}</p>
              <div class="actions" x-show="notEnrolling()"><button type="button" x-on:click="start" x-bind:disabled="busy">{t('admin.profile.twofaStart')}</button></div>
              <p class="alert" role="alert" x-text="startError" x-show="startError"></p>
              <template x-if="enrolling">
                <div class="enrol">
                  <ol>
                    <li>{t('admin.profile.twofaStep1')}</li>
                    <li>{t('admin.profile.twofaStep2')}</li>
                  </ol>
                  <img class="qr" x-bind:src="qrSrc" width="200" height="200" alt={t('admin.profile.qrAlt')} />
                  <p>{t('admin.profile.secretText')} <code class="secret" x-text="secret"></code></p>
                </div>
              </template>
              <form id="twofa-on" x-show="enrolling" x-cloak x-on:submit="confirm">
                <Field id="twofa-code" label={t('users.totpCode')} help={t('users.totpCodeHelp')}>
                  <input type="text" id="twofa-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
                </Field>
                <Field id="twofa-on-password" label={t('admin.profile.twofaOnPassword')} help={t('admin.profile.twofaOnPasswordHelp')}>
                  <input type="password" id="twofa-on-password" name="password" autocomplete="current-password" required />
                </Field>
                <p class="alert" data-error-for="_form" role="alert"></p>
                <div class="actions">
                  <button type="submit" x-bind:disabled="busy">{t('admin.profile.twofaConfirm')}</button>
                  <button type="button" class="secondary" x-on:click="cancel">{t('globals.buttons.cancel')}</button>
                </div>
              </form>
            </>
          )}
        </section>
      </>
    ),
  });
}
