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
  },
  {
    name: 'Default archive template',
    type: 'campaign',
    subject: '',
    body: readDefault('archive.html'),
    bodySource: null,
    isDefault: false,
  },
  {
    name: 'Sample transactional template',
    type: 'tx',
    subject: 'Welcome {{ .Subscriber.Name }}',
    body: readDefault('tx.html'),
    bodySource: null,
    isDefault: false,
  },
  {
    name: 'Sample visual template',
    type: 'campaign_visual',
    subject: '',
    body: readDefault('visual.html'),
    bodySource: readDefault('visual.json'),
    isDefault: false,
  },
];
