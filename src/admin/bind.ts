// Typed Alpine bindings. A page names its script's component by type (an `import type` of the
// script) and writes every directive through these helpers, so tsc checks the names: the
// component in x-data, methods in x-on, fields in x-model, what x-show, x-text and x-bind read,
// the items of x-for, the data-* attributes the script reads (readData in the script) and the
// elements it reads by x-ref.
import type { Component } from './client/component.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (...args: any[]) => unknown;
/** The keys of T that are methods. */
export type MethodOf<T> = { [K in keyof T]-?: T[K] extends Fn ? K : never }[keyof T] & string;
/** The keys of T that hold data. */
export type FieldOf<T> = { [K in keyof T]-?: T[K] extends Fn ? never : K }[keyof T] & string;
/** A field of an object the component holds (`status.name`), one level down. */
type FieldPath<T> = { [K in FieldOf<T>]: T[K] extends readonly unknown[] ? never : T[K] extends object ? `${K}.${FieldOf<T[K]>}` : never }[FieldOf<T>];
/**
 * What a directive may read: a field (or a field of one), or a method called without arguments,
 * maybe negated; or a method named bare, which Alpine calls.
 */
export type Read<T> = FieldOf<T> | FieldPath<T> | MethodOf<T> | `${MethodOf<T>}()` | `!${FieldOf<T>}` | `!${MethodOf<T>}()`;
/** The fields and argument-less methods of T that give arrays, and what each array holds. */
type ListOf<T> = { [K in keyof T & string]-?: T[K] extends readonly unknown[] ? K : T[K] extends () => readonly unknown[] ? `${K}()` : never }[keyof T & string];
type ItemOf<T, L> = L extends `${infer K}()` ? (K extends keyof T ? (T[K] extends () => readonly (infer E)[] ? E : never) : never) : L extends keyof T ? (T[L] extends readonly (infer E)[] ? E : never) : never;

export type Attrs = Record<string, string>;
/** The value of a data-* attribute as a page writes it (the script reads strings). */
type DataValue = string | number | boolean | null | undefined;

/** data-* attributes from the typed values a script reads with readData (camelCase → data-kebab-case). */
export function data<D extends { [K in keyof D]: string | undefined }>(values: { [K in keyof D]: DataValue }): Attrs {
  const out: Attrs = {};
  for (const [key, value] of Object.entries(values as Record<string, DataValue>)) {
    if (value === undefined || value === null) continue;
    out[`data-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`] = String(value);
  }
  return out;
}

/**
 * x-ref: an element a script reads as `this.$refs.<name>`, named by the refs interface the
 * script declares (`ref<ImportRefs>('form')`), so a renamed ref fails in tsc.
 */
export function ref<R>(name: keyof R & string): Attrs {
  return { 'x-ref': name };
}

/** The directives inside an x-for: each reads the item's fields, or calls the component with the item. */
export interface ItemBinding<T, E> {
  /** x-for on the <template>, with x-bind:key when the item has the given field. */
  each(key?: FieldOf<E>): Attrs;
  text(field: FieldOf<E>): Attrs;
  show(field: FieldOf<E>): Attrs;
  attr(name: string, field: FieldOf<E>): Attrs;
  /** x-on calling a component method with the item, or one of its fields. */
  on(event: string, method: MethodOf<T>, arg?: FieldOf<E>): Attrs;
  /** x-bind calling a component method with the item. */
  attrOf(name: string, method: MethodOf<T>): Attrs;
}

export interface Binding<T> {
  /** x-data: the element the component lives on. */
  root(): Attrs;
  on(event: string, method: MethodOf<T>): Attrs;
  model(field: FieldOf<T>): Attrs;
  show(read: Read<T>): Attrs;
  text(read: Read<T>): Attrs;
  /** x-bind of an attribute. */
  attr(name: string, read: Read<T>): Attrs;
  /** An x-for over one of the component's lists (`item` is the loop variable's name). */
  list<L extends ListOf<T>>(list: L, item: string): ItemBinding<T, ItemOf<T, L>>;
}

function directives<T>(name: string | null): Binding<T> {
  return {
    root: () => {
      if (name === null) throw new Error('a mixin has no x-data of its own');
      return { 'x-data': name };
    },
    on: (event, method) => ({ [`x-on:${event}`]: method }),
    model: (field) => ({ 'x-model': field }),
    show: (read) => ({ 'x-show': read }),
    text: (read) => ({ 'x-text': read }),
    attr: (attr, read) => ({ [`x-bind:${attr}`]: read }),
    list: (list, item) => ({
      each: (key) => ({ 'x-for': `${item} in ${list}`, ...(key ? { 'x-bind:key': `${item}.${key}` } : {}) }),
      text: (field) => ({ 'x-text': `${item}.${field}` }),
      show: (field) => ({ 'x-show': `${item}.${field}` }),
      attr: (attr, field) => ({ [`x-bind:${attr}`]: `${item}.${field}` }),
      on: (event, method, arg) => ({ [`x-on:${event}`]: `${method}(${arg ? `${item}.${arg}` : item})` }),
      attrOf: (attr, method) => ({ [`x-bind:${attr}`]: `${method}(${item})` }),
    }),
  };
}

/** The bindings of a page's component: `bind<typeof listsPage>('listsPage')`; the name must be the component's. */
export function bind<C extends Component>(name: C['name']): Binding<ReturnType<C['make']>> {
  return directives(name);
}

/** The bindings of a mixin a shared component renders inside any page's component (the table selection). */
export function bindMixin<T>(): Binding<T> {
  return directives(null);
}
