// What every verifier is, in a file of its own: the implementations (http.ts, mx.ts) and the registry that
// picks one (index.ts) all need it, and the registry imports the implementations.

export interface Verifier {
  readonly kind: 'none' | 'mx' | 'http';
  /** Undeliverable addresses among `emails`: lower-cased address → reason. Throws when it cannot tell. */
  check(emails: string[]): Promise<Map<string, string>>;
}
