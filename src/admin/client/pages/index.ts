// One Alpine component per admin page, by the name its x-data uses.
import { bouncesPage } from './bounces.ts';
import { importPage } from './import.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  importPage,
  bouncesPage,
};
