// The dashboard's first-run checklist: "Dismiss" hides it for the signed-in user, asked first
// (it does not come back), and the page reloads without it; the choice of counting opens and
// clicks per subscriber is saved as the privacy.individual_tracking setting.
import { api, navigate, notifyError } from '../admin/client/api.ts';
import { clicked, confirmAction } from '../admin/client/dialog.ts';
import { component, readData } from '../admin/client/component.ts';

/** What the Dismiss button carries: the question it asks first, and what it says once done. */
export interface DismissButton {
  confirm: string;
  done: string;
}

/** What a tracking choice carries: whether it counts per subscriber, and what it says once saved. */
export interface TrackingButton {
  individual: 'true' | 'false';
  done: string;
}

export const firstRun = component('firstRun', () => ({
  async dismiss(this: { $event: Event }) {
    const el = clicked(this.$event);
    const button = readData<DismissButton>(el);
    if (!(await confirmAction(button.confirm, el.textContent?.trim() ?? '', false))) return;
    try {
      await api('POST', '/api/profile/first-run/dismiss');
      navigate(null, button.done);
    } catch (err) {
      notifyError(err);
    }
  },
  async setTracking(this: { $event: Event }) {
    const el = clicked(this.$event);
    if (el.getAttribute('aria-pressed') === 'true') return;
    const choice = readData<TrackingButton>(el);
    try {
      await api('PUT', '/api/settings', { 'privacy.individual_tracking': choice.individual === 'true' });
      navigate(null, choice.done);
    } catch (err) {
      notifyError(err);
    }
  },
}));
