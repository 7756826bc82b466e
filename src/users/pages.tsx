// The markup of the admin sign-in pages (login-routes.ts): login and its TOTP step, forgot and
// reset password. No scripts; every value is escaped by JSX.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { PASSWORD_MIN } from './rules.ts';
import { CLI_NAME } from '../sea.ts';

function ErrorLine({ message }: { message: string }): JSX.Element | null {
  return message ? <p class="error" role="alert">{message}</p> : null;
}

export function LoginForm({ next, error = '' }: { next: string; error?: string }): JSX.Element {
  return (
    <>
      <h1>Sign in</h1>
      <ErrorLine message={error} />
      <form method="post" action="/admin/login">
        <input type="hidden" name="next" value={next} />
        <label for="username">Username</label>
        <input type="text" id="username" name="username" autocomplete="username" required autofocus />
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted"><a href="/admin/forgot">Forgot your password?</a> Where no mail is set up yet, someone with access to the server sets a new one with <code>{CLI_NAME} user reset-password NAME</code>.</p>
      <p class="muted">First sign-in? The admin user (<code>admin</code> unless another name was chosen) and its password were printed once, by <code>{CLI_NAME} install</code> or by the first <code>{CLI_NAME} serve</code>, whichever ran first (unless <code>LISTMGR_ADMIN_PASSWORD</code> set it). Lost it? On the server, run <code>{CLI_NAME} user reset-password admin</code>.</p>
    </>
  );
}

export function TwofaForm({ token, next, error = '' }: { token: string; next: string; error?: string }): JSX.Element {
  return (
    <>
      <h1>Two-factor authentication</h1>
      <ErrorLine message={error} />
      <form method="post" action="/admin/login/twofa">
        <input type="hidden" name="token" value={token} />
        <input type="hidden" name="next" value={next} />
        <label for="totp_code">Code from your authenticator app</label>
        <input type="text" id="totp_code" name="totp_code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required autofocus />
        <button type="submit">Verify</button>
      </form>
    </>
  );
}

export function ForgotForm(): JSX.Element {
  return (
    <>
      <h1>Forgot your password?</h1>
      <form method="post" action="/admin/forgot">
        <label for="email">The e-mail address of your account</label>
        <input type="email" id="email" name="email" autocomplete="email" required autofocus />
        <button type="submit">Send a reset link</button>
      </form>
      <p class="muted">The link is sent by mail. Where no mail is set up yet, someone with access to the server sets a new password with <code>{CLI_NAME} user reset-password NAME</code>.</p>
    </>
  );
}

/** The answer to a forgot-password request, the same whether or not the address belongs to anyone. */
export function ResetMailSent(): JSX.Element {
  return (
    <>
      <h1>Check your mail</h1>
      <p>If the address belongs to an account, a link to reset its password is on its way. The link works once, for 30 minutes.</p>
      <p><a href="/admin/login">Back to sign in</a></p>
    </>
  );
}

export function ResetForm({ token, error = '' }: { token: string; error?: string }): JSX.Element {
  return (
    <>
      <h1>Choose a new password</h1>
      <ErrorLine message={error} />
      <form method="post" action="/admin/reset">
        <input type="hidden" name="token" value={token} />
        <label for="password">New password (at least {PASSWORD_MIN} characters)</label>
        <input type="password" id="password" name="password" autocomplete="new-password" minlength={PASSWORD_MIN} required autofocus />
        <label for="password2">Repeat the new password</label>
        <input type="password" id="password2" name="password2" autocomplete="new-password" required />
        <button type="submit">Set password</button>
      </form>
    </>
  );
}

export function UnusableLink(): JSX.Element {
  return (
    <>
      <h1>This link cannot be used</h1>
      <p>It is wrong, was already used, or has expired. <a href="/admin/forgot">Ask for a new one</a>.</p>
    </>
  );
}
