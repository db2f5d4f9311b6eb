// The errors the domain throws on purpose. Faces translate them (REST status, MCP tool error); nothing else does.
export type ErrorKind =
  'not_found' | 'validation' | 'conflict' | 'limit_exceeded' | 'state_conflict' | 'forbidden' | 'unprocessable';

export type FieldErrors = Record<string, string[]>;

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
  constructor(
    message: string,
    readonly data?: object,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export class NotFound extends DomainError {
  readonly kind = 'not_found';
}

/** Per-field messages; `message` is the first problem in words, for faces that show one line (MCP). */
export class Validation extends DomainError {
  readonly kind = 'validation';
  constructor(
    readonly fields: FieldErrors,
    message = 'Validation failed',
  ) {
    super(message, fields);
  }
  static field(field: string, message: string): Validation {
    return new Validation({ [field]: [message] }, message);
  }
  /** The field map, worded by its first problem. */
  static of(fields: FieldErrors): Validation {
    return new Validation(fields, firstProblem(fields));
  }
}

export class Conflict extends DomainError {
  readonly kind = 'conflict';
}

export class LimitExceeded extends DomainError {
  readonly kind = 'limit_exceeded';
}

/** The operation is not allowed in the resource's current state (e.g. updating a sent campaign). */
export class StateConflict extends DomainError {
  readonly kind = 'state_conflict';
}

/** Well-formed and allowed, but refused for what it holds (e.g. a campaign that fails a blocking check before sending). */
export class Unprocessable extends DomainError {
  readonly kind = 'unprocessable';
}

export class Forbidden extends DomainError {
  readonly kind = 'forbidden';
  constructor(scope: string) {
    super('Forbidden', undefined, `API key lacks the required permission: ${scope}`);
  }
}

/** First message of a field map, prefixed by its field: "email: A valid email address is required". */
export function firstProblem(fields: FieldErrors): string {
  const [field, messages] = Object.entries(fields)[0] ?? [];
  if (!field) return 'Validation failed';
  return field === '_' ? messages![0]! : `${field}: ${messages![0]}`;
}
