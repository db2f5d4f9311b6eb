// The safety net under the edge's validation: a database error that input caused (a value PostgreSQL
// cannot hold, a constraint, a unique key taken by a concurrent request) becomes the domain error the
// input deserves, so a face answers 400/409 instead of 500. Each face's error handler calls this once;
// anything else (a lost connection, a bug) stays a logged 500. PostgreSQL and PGlite both report the
// SQLSTATE in `code` and, where they know it, the column in `column`.
import { Conflict, type DomainError, Validation } from './errors.ts';

const INVALID_INPUT: Record<string, string> = {
  '22001': 'Value is too long',
  '22003': 'Number is out of range',
  '22007': 'Not a valid date',
  '22008': 'Date is out of range',
  '22019': 'Invalid escape character',
  '22021': 'Text contains characters that cannot be stored',
  '22023': 'Invalid value',
  '22025': 'Invalid escape sequence',
  '2201B': 'Invalid regular expression',
  '2202E': 'Array index is out of range',
  '22P02': 'Value has the wrong format',
  '22P05': 'Text contains characters that cannot be stored',
  '23502': 'Is required',
  '23514': 'Value is not allowed',
  '54000': 'Value is too large',
};

interface StorageError {
  code?: unknown;
  column?: unknown;
}

/** The domain error a database error stands for, or undefined when it is not the input's fault. */
export function fromStorageError(err: unknown): DomainError | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const { code, column } = err as StorageError;
  if (typeof code !== 'string' || code.length !== 5) return undefined;
  if (code === '23505') return new Conflict('Already exists');
  if (code === '23503') return new Conflict('A referenced item no longer exists');
  const message = INVALID_INPUT[code];
  if (!message) return undefined;
  return Validation.field(typeof column === 'string' && column ? column : '_', message);
}
