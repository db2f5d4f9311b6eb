// node-postgres ships no types for its utils module; @types/pg describes only the package's main entry.
declare module 'pg/lib/utils.js' {
  /** A JavaScript value as the text (or, for a Buffer, the bytes) node-postgres sends for a parameter. */
  export function prepareValue(value: unknown): string | Buffer | null;
}
