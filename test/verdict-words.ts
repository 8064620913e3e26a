/**
 * What a verdict sentence (engine `verdictSentence`) says of its last loss, for tests: a lost
 * fact's sentence names the loss of its last copy with what replaced it, first when it is the whole
 * story ("lost in pass 3 of summarize (the last of 2 copies) — replaced by …"), else at the end of
 * its history ("lost at pass 1 of summarize (at #4); back at …; lost again at pass 3 of summarize
 * (at #11) — replaced by …").
 */
export function lastLossAt(pass: number): RegExp {
  return new RegExp(`(?:^lost in|lost (?:again )?at) pass ${pass} of summarize(?: \\(at #\\d+\\)| \\(the last of \\d+ copies\\))? — replaced by`)
}
