/**
 * Runs the CLI in-process for a test: `main(args)` with its standard output and error collected
 * as text (each line ended by `\n`), and its exit code. Node only.
 */
import { main } from '../src/cli/main'

/** The CLI's exit code, standard output and standard error for `args`. */
export async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await main(args, (s) => (stdout += s + '\n'), (s) => (stderr += s + '\n'))
  return { code, stdout, stderr }
}
