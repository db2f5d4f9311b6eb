// Kysely types of the segments tables. Add each table of your migrations here.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SegmentsTables {}
