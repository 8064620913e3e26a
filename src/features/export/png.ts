import { toBlob } from 'html-to-image'
import { downloadBlob } from '../../app/download'

/** Device pixels per CSS pixel of a saved picture: 2, sharp on a high-density screen or a slide. */
const PNG_PIXEL_RATIO = 2

/** Elements carrying this attribute are left out of a picture (the Save button itself, controls). */
export const PNG_SKIP_ATTRIBUTE = 'data-png-skip'

/** What a picture shows: the token timeline, the sweep's heat map or the totals card. */
export type PngSubject = 'timeline' | 'heatmap' | 'totals'

/**
 * `<transcript>-<subject>.png`: the transcript's file name without its folder and its extension
 * (`.jsonl`; `.json.gz` both parts), with characters a file system may refuse (`/ \ : * ? " < > |` and control
 * characters) replaced by `_`; `transcript` when nothing is left.
 */
export function pngFileName(transcriptFileName: string, subject: PngSubject): string {
  const base = transcriptFileName
    .replace(/^.*[/\\]/, '')
    .replace(/\.(gz|zst|bz2|xz)$/i, '')
    .replace(/\.[a-z0-9]{1,6}$/i, '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_')
    .trim()
  return `${base || 'transcript'}-${subject}.png`
}

/**
 * The colour behind `el` as the page paints it: its own computed background, else the nearest
 * ancestor's that is not transparent, else the document's; white when all are transparent.
 */
function backgroundOf(el: HTMLElement): string {
  for (let node: HTMLElement | null = el; node; node = node.parentElement) {
    const colour = getComputedStyle(node).backgroundColor
    if (colour && colour !== 'transparent' && !/^rgba\(.*,\s*0\)$/.test(colour)) return colour
  }
  return getComputedStyle(document.documentElement).backgroundColor || '#ffffff'
}

/**
 * Renders `el` as it is on screen (html-to-image: a clone with its computed styles, canvases as
 * their bitmaps, in an SVG image drawn on a canvas) at `PNG_PIXEL_RATIO`, on the theme's
 * background (never transparent), without scrollbars or the elements marked `PNG_SKIP_ATTRIBUTE`,
 * and downloads it as `fileName`. Rejects when the browser cannot draw or encode the picture.
 */
export async function savePng(el: HTMLElement, fileName: string): Promise<void> {
  const blob = await toBlob(el, {
    pixelRatio: PNG_PIXEL_RATIO,
    backgroundColor: backgroundOf(el),
    // A scroll box (the timeline view) would otherwise draw its scrollbars into the picture.
    style: { overflow: 'hidden' },
    filter: (node) => !(node instanceof Element && node.hasAttribute(PNG_SKIP_ATTRIBUTE)),
  })
  if (!blob) throw new Error('the browser could not encode the picture')
  downloadBlob(blob, fileName)
}
