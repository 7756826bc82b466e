// The newsletter's brand as templates see it (`Brand`): campaign, archive and system mails.
import type { BrandInfo } from '../templating/index.ts';
import type { SettingsService } from '../settings/service.ts';

export function brandOf(settings: SettingsService): BrandInfo {
  const logo = settings.str('app.logo_url');
  return {
    name: settings.str('app.site_name'),
    // A logo from the media library is a path on this site; a mail needs the whole URL.
    logoURL: logo.startsWith('/') ? `${settings.rootUrl()}${logo}` : logo,
    color: settings.str('app.accent_color'),
    address: settings.str('app.postal_address'),
  };
}
