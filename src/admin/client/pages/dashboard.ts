// The dashboard's first-run checklist: "Dismiss" hides it for the signed-in user, asked first
// (it does not come back), and the page reloads without it.
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
  };
}
