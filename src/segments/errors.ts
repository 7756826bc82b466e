/**
 * A segment expression that is refused: bad syntax, or something outside the grammar or the
 * allow-lists. The message names the offending token and its 1-based character position in
 * the expression as the user wrote it, so it can go back to the client unchanged (HTTP 400).
 */
export class SegmentError extends Error {
  override readonly name = 'SegmentError';

  /** 1-based character position in the original expression, or 0 when it concerns the whole. */
  readonly position: number;

  constructor(message: string, position: number) {
    super(position > 0 ? `${message} at position ${position}` : message);
    this.position = position;
  }
}
