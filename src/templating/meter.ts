// What a render is charged for the work functions do inside one call.
//
// A template can build values that share parts ({{ $x = list $x $x }} doubles a value's size
// at the cost of one step), so one call of a function that walks a value as a tree (printing,
// JSON, deep comparison or copy) could take 2^n time, between two of the render's step and
// time checks; strings, regular expressions and time zones have their own costs. Such work is
// charged to the render in progress as it goes (NODE units per container and per element
// walked, one per 32 characters copied natively, one per character looped over in
// JavaScript, …), so the render's step budget and deadline fire in the middle of a call.
// Rendering is synchronous, so the render in progress is module state (set and restored by
// render(); outside a render nothing is charged). This module imports nothing, so that every
// other one can use it.

/** What work is charged to (the render's ExecState). */
export interface Meter {
  charge(n: number): void;
}

let meter: Meter | null = null;

/** Makes `m` the meter; returns the previous one, to restore after the render. */
export function setMeter(m: Meter | null): Meter | null {
  const prev = meter;
  meter = m;
  return prev;
}

/**
 * Units per node a deep walk visits (a container, an element, a map entry). A unit is about
 * what a loop iteration costs (40-60 ns); visiting, comparing or copying a node costs about
 * three.
 */
export const NODE = 3;

/** Charges `n` units of work to the render in progress. */
export function chargeWalk(n: number): void {
  if (meter !== null && n > 0) meter.charge(n);
}

/** Units for handling a string of `len` characters natively (copying, searching): one per 32. */
export function stringUnits(len: number): number {
  return len >>> 5;
}

/** Charges a function that loops over a string in JavaScript, character by character. */
export function chargePerChar(s: string): void {
  if (meter !== null && s.length > 0) meter.charge(s.length);
}

/** Charges sorting `n` items: about n·log2(n) comparisons. */
export function chargeSort(n: number): void {
  if (meter !== null && n > 1) meter.charge(n * Math.ceil(Math.log2(n)));
}
