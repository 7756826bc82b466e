// The look of the public pages (subscription, archive, landing), from the appearance settings.
import type { PageLook } from '../http/layout.tsx';
import type { SettingsService } from '../settings/service.ts';

export function publicLook(settings: SettingsService): PageLook {
  return {
    siteName: settings.str('app.site_name'),
    logoUrl: settings.str('app.logo_url') || undefined,
    faviconUrl: settings.str('app.favicon_url') || undefined,
    customCss: settings.str('appearance.public.custom_css') || undefined,
    scripts: settings.str('appearance.public.custom_js') ? ['/public/custom.js'] : [],
  };
}
