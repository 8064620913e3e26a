/** The CLI's two failures, by exit code: bad usage (2) and bad input (1). */

/** A usage error (a flag, a value, a missing argument): exit code 2, a line pointing to `--help` follows. */
export class UsageError extends Error {}

/** A bad-input error (an unreadable file, a transcript that does not import): exit code 1. */
export class InputError extends Error {}
