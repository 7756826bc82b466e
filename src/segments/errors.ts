/**
 * A segment expression that is refused: bad syntax, or something outside the grammar or the
 * allow-lists. The message names the offending token and its 1-based character position in
 * the expression as the user wrote it, so it can go back to the client unchanged (HTTP 400).
 */
export class SegmentError extends Error {
  override readonly name = 'SegmentError';

  /** 1-based character position in the original expression, or 0 when it concerns the whole. */
  readonly position: number;

  /** `hint`: the form the user probably meant ("did you mean …?"), after the position. */
  constructor(message: string, position: number, hint = '') {
    super(`${message}${position > 0 ? ` at position ${position}` : ''}${hint ? ` — ${hint}` : ''}`);
    this.position = position;
  }
}

/** A name that is no column where it was used (the translator suggests the right form). */
export class UnknownColumnError extends SegmentError {
  constructor(readonly column: string, position: number, hint = '') {
    super(`unknown column "${column}"`, position, hint);
  }
}
