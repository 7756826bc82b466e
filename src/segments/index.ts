// Segment expressions: listmonk's Postgres-flavoured subscriber filters (`query` parameter),
// parsed, checked against allow-lists and translated into parameterised SQLite.
export { SegmentError } from './errors.ts';
export { translateSegment, type SegmentAccess, type TranslateOptions, type TranslatedSegment } from './translate.ts';
export { SegmentRunner } from './runner.ts';
export { TABLE_PERMISSIONS } from './catalog.ts';
export { registerSegmentFunctions } from './functions.ts';
