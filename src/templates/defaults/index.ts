// The templates created at install, in the order listmonk creates them. The bodies live in
// the .html/.json files beside this module and are read from the checkout at run time
// (src/ is bundled into dist/, these files are not).
import { readAppFile } from '../../paths.ts';

export type TemplateType = 'campaign' | 'campaign_visual' | 'tx';

export interface DefaultTemplate {
  name: string;
  type: TemplateType;
  /** Only tx templates have a subject; campaign types store "". */
  subject: string;
  body: string;
  /** The visual builder's block document (JSON text) for campaign_visual, else null. */
  bodySource: string | null;
  isDefault: boolean;
  /**
   * The SHA-256 (hex) of each body an earlier version shipped: a row still holding one of them
   * was never edited, and is brought up to this body on start (TemplateStore.upgradeUntouched).
   */
  earlierBodies: readonly string[];
}

const readDefault = (file: string): string => readAppFile(`src/templates/defaults/${file}`);

export const defaultTemplates: readonly DefaultTemplate[] = [
  {
    name: 'Default campaign template',
    type: 'campaign',
    subject: '',
    body: readDefault('campaign.html'),
    bodySource: null,
    isDefault: true,
    earlierBodies: [
      '7995f6a85369e82814526efbdabbce1e5a450fecc47da30a288560314f93d438',
      // Before the brand (name, logo, accent colour, postal address).
      '95490167cac5be191cf46d2770344896a769fba9c2b2c3f55cdcc85376d2f618',
    ],
  },
  {
    name: 'Default archive template',
    type: 'campaign',
    subject: '',
    body: readDefault('archive.html'),
    bodySource: null,
    isDefault: false,
    earlierBodies: [
      '9e6b8a0f2ca8fb2876a86ad58f858071be12395dbba6d2af59752779a8dca063',
      'bce54ca85cb4544108ca0eff50876f3c7ea5ddc4b869bea9fc78c13ef8ddc0f9',
      'ab5bfbab3a9b6e25262d285a1f42afb4ee48dc06486fd6e3947c8020f2957322',
      // Before the brand and the masthead, date, neighbours and subscribe box.
      '2449a64e9cab50685f1d03778c0860b264d4f451477a6486c11b5bd6232f488e',
    ],
  },
  {
    name: 'Sample transactional template',
    type: 'tx',
    subject: 'Welcome {{ .Subscriber.Name }}',
    body: readDefault('tx.html'),
    bodySource: null,
    isDefault: false,
    earlierBodies: [],
  },
  {
    name: 'Sample visual template',
    type: 'campaign_visual',
    subject: '',
    body: readDefault('visual.html'),
    bodySource: readDefault('visual.json'),
    isDefault: false,
    earlierBodies: [],
  },
];
