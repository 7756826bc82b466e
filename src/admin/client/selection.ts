// Row selection of a table with bulk actions: the rows ticked on this page, or every row that
// matches the page's query ("all N matching"), which the bulk actions then send as the query.
import { readData } from './component.ts';

/** What the element of a component with a selection carries: how many rows match. */
export interface SelectionData {
  total: string;
}

export interface Selection {
  selected: string[];
  matching: boolean;
  total: number;
}

/** State and methods a page component mixes in; the table carries data-total. */
export function selection() {
  return {
    selected: [] as string[],
    matching: false,
    total: 0,
    // $root, not $el: in a method called from a control, $el is that control.
    initSelection(this: Selection & { $root: HTMLElement }) {
      this.total = Number(readData<SelectionData>(this.$root).total ?? 0);
    },
    rowBoxes(this: { $root: HTMLElement }): HTMLInputElement[] {
      return [...this.$root.querySelectorAll<HTMLInputElement>('input[data-row]')];
    },
    toggleAll(this: Selection & { rowBoxes(): HTMLInputElement[]; $event: Event }) {
      const on = (this.$event.target as HTMLInputElement).checked;
      this.selected = on ? this.rowBoxes().map((b) => b.value) : [];
      this.matching = false;
    },
    selectMatching(this: Selection) {
      this.matching = true;
    },
    clearSelection(this: Selection) {
      this.selected = [];
      this.matching = false;
    },
    hasSelection(this: Selection) {
      return this.selected.length > 0;
    },
    /** The bulk bar shows while rows are ticked, or every matching row is chosen (a page may choose them without ticking). */
    barShown(this: Selection) {
      return this.selected.length > 0 || this.matching;
    },
    allOnPage(this: Selection & { rowBoxes(): HTMLInputElement[] }) {
      const boxes = this.rowBoxes();
      return boxes.length > 0 && this.selected.length === boxes.length;
    },
    /** Whether to offer "all N matching": the whole page is ticked and there are more rows. */
    offerMatching(this: Selection & { allOnPage(): boolean }) {
      return !this.matching && this.allOnPage() && this.total > this.selected.length;
    },
    /** How many rows a bulk action will touch. */
    selectedCount(this: Selection) {
      return this.matching ? this.total : this.selected.length;
    },
    selectedLabel(this: Selection & { selectedCount(): number }) {
      const n = this.selectedCount();
      return this.matching ? `All ${n.toLocaleString('en-US')} matching rows selected` : `${n.toLocaleString('en-US')} selected`;
    },
    selectedIds(this: Selection) {
      return this.selected.map(Number);
    },
  };
}
