/** The kinds of change in words: one pure module (src/report/kinds.ts) the page and the HTML report share. */
export { explainFate, explainOrigin, fateChip, KIND_INFO, originChip, passName, type ChangeKind } from '../report/kinds'
