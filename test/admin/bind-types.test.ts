// The typed bindings of src/admin/bind.ts: what they render, and what they refuse. The refusals
// are checked by `tsc` (npm test runs it over test/ too): each `@ts-expect-error` below fails
// the type check if the line it marks ever compiles, so a page naming a component, method,
// field or data attribute its script does not have cannot build.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bind, data } from '../../src/admin/bind.ts';
import { component } from '../../src/admin/client/component.ts';

interface RowButton {
  id: string;
  name: string;
}

const example = component('examplePage', () => ({
  busy: false,
  rows: [] as { id: number; label: string }[],
  save() {},
  remove(_id: number) {},
  canSave() {
    return true;
  },
}));

const ui = bind<typeof example>('examplePage');

/** Never called: tsc checks that each marked line is refused. */
export function refusedByTheTypeCheck(): void {
  // @ts-expect-error: the component is named examplePage
  bind<typeof example>('otherPage');
  // @ts-expect-error: no such method
  ui.on('click', 'sav');
  // @ts-expect-error: a field is not a method
  ui.on('click', 'busy');
  // @ts-expect-error: a method is not a field to model
  ui.model('save');
  // @ts-expect-error: no such field
  ui.show('bussy');
  // @ts-expect-error: the items have no such field
  ui.list('rows', 'r').text('name');
  // @ts-expect-error: not a list
  ui.list('busy', 'r');
  // @ts-expect-error: the script reads no such data attribute
  data<RowButton>({ id: 1, name: 'x', colour: 'red' });
  // @ts-expect-error: a data attribute the script reads is missing
  data<RowButton>({ id: 1 });
}

describe('typed Alpine bindings', () => {
  it('renders the directives a page asks for', () => {
    assert.deepEqual(ui.root(), { 'x-data': 'examplePage' });
    assert.deepEqual(ui.on('click', 'save'), { 'x-on:click': 'save' });
    assert.deepEqual(ui.model('busy'), { 'x-model': 'busy' });
    assert.deepEqual(ui.show('!canSave()'), { 'x-show': '!canSave()' });
    assert.deepEqual(ui.attr('disabled', 'busy'), { 'x-bind:disabled': 'busy' });
    const row = ui.list('rows', 'r');
    assert.deepEqual(row.each('id'), { 'x-for': 'r in rows', 'x-bind:key': 'r.id' });
    assert.deepEqual(row.text('label'), { 'x-text': 'r.label' });
    assert.deepEqual(row.on('click', 'remove', 'id'), { 'x-on:click': 'remove(r.id)' });
    assert.deepEqual(data<RowButton>({ id: 7, name: 'News & "more"' }), { 'data-id': '7', 'data-name': 'News & "more"' });
  });
});
