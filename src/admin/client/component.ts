// An admin page's script is a named Alpine component. Its page binds markup to it through
// admin/bind.ts, typed by the definition (an `import type`), so tsc checks every name the markup
// uses. The build gathers every component the `*.client.ts` files under src/ export (scripts/build.mjs).

export interface Component<N extends string = string, T extends object = object> {
  readonly name: N;
  readonly make: () => T;
}

export function component<const N extends string, T extends object>(name: N, make: () => T): Component<N, T> {
  return { name, make };
}

export function isComponent(value: unknown): value is Component {
  return typeof value === 'object' && value !== null && typeof (value as Component).name === 'string' && typeof (value as Component).make === 'function';
}

/** The data-* attributes an element carries for a script, read as the type the page wrote them by. */
export function readData<D extends { [K in keyof D]: string | undefined }>(el: HTMLElement): D {
  return { ...el.dataset } as D;
}
