// The dashboard's first-run checklist: "Dismiss" hides it for the signed-in user, asked first
// (it does not come back), and the page reloads without it; the choice of counting opens and
// clicks per subscriber is saved as the privacy.individual_tracking setting.
import { api, navigate, notifyError } from '../api.ts';
import { clicked, confirmAction } from '../dialog.ts';

export function firstRun() {
  return {
    async dismiss(this: { $event: Event }) {
      const el = clicked(this.$event);
      if (!(await confirmAction(el.dataset.confirm ?? '', el.textContent?.trim() ?? '', false))) return;
      try {
        await api('POST', '/api/profile/first-run/dismiss');
        navigate(null, el.dataset.done);
      } catch (err) {
        notifyError(err);
      }
    },
    async setTracking(this: { $event: Event }) {
      const el = clicked(this.$event);
      if (el.getAttribute('aria-pressed') === 'true') return;
      try {
        await api('PUT', '/api/settings', { 'privacy.individual_tracking': el.dataset.individual === 'true' });
        navigate(null, el.dataset.done);
      } catch (err) {
        notifyError(err);
      }
    },
  };
}
