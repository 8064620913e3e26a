/**
 * One line, in a user's words, for an exception the engine did not expect: what the page's
 * banners and the CLI's `error:` line say when a run, an import or a view fails on something no
 * check caught. The engine's own errors (import failures, refused parameters) already say what
 * happened and pass through unchanged; the JavaScript engine's resource errors ("Maximum call
 * stack size exceeded", "Invalid string length", "Invalid array length") are named for what they
 * mean for the input.
 */

/** Resource errors of the JavaScript engine (V8's wording), and what each means for the input. */
const RESOURCE_ERRORS: readonly { pattern: RegExp; say: string }[] = [
  {
    pattern: /maximum call stack size exceeded|too much recursion/i,
    say: 'this input is nested or chained too deeply to process here (the engine ran out of stack)',
  },
  {
    pattern: /invalid string length/i,
    say: 'a text built from this input would be longer than the largest string the browser can hold (about 512 MB)',
  },
  {
    pattern: /invalid array length|array buffer allocation failed|out of memory/i,
    say: 'this input needs more memory than the browser allows',
  },
]

/**
 * The message of `e` (an Error, or any thrown value as text), with the JavaScript engine's resource
 * errors replaced by what they mean for the input; always one line (newlines folded to spaces).
 */
export function failureText(e: unknown): string {
  const raw = e instanceof Error ? e.message : typeof e === 'string' ? e : String(e)
  const known = RESOURCE_ERRORS.find((r) => r.pattern.test(raw))
  const text = known ? known.say : raw
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim() || 'unknown error'
}
