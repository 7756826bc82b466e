// One Alpine component per admin page, by the name its x-data uses.
export const PAGE_COMPONENTS: Record<string, () => object> = {};
