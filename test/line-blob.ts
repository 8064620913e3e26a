/** What a `lineBlob`'s stream was asked for: reads (pulls) so far, and whether it was cancelled. */
export interface LineBlobSeen {
  pulls: number
  cancelled: boolean
}

/**
 * A Blob whose stream hands out `lines` one per read (UTF-8), reading nothing ahead, so a test
 * sees exactly which reads an import asked for. `beforeRead(n)` is awaited before read n (1-based)
 * is answered, to hold the import mid-file.
 */
export function lineBlob(lines: readonly string[], beforeRead?: (n: number) => Promise<void> | void): { blob: Blob; seen: LineBlobSeen } {
  const seen: LineBlobSeen = { pulls: 0, cancelled: false }
  const encoder = new TextEncoder()
  const blob = new (class extends Blob {
    override stream() {
      return new ReadableStream<Uint8Array<ArrayBuffer>>(
        {
          async pull(controller) {
            const line = lines[seen.pulls++]
            await beforeRead?.(seen.pulls)
            if (line === undefined) controller.close()
            else controller.enqueue(encoder.encode(line))
          },
          cancel() {
            seen.cancelled = true
          },
        },
        // Nothing is read ahead: a pull is a read the import asked for.
        { highWaterMark: 0 },
      )
    }
  })([...lines])
  return { blob, seen }
}
