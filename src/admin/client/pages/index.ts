// One Alpine component per admin page, by the name its x-data uses.
import { subscriber, subscribers } from './subscribers.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  subscribers,
  subscriber,
};
