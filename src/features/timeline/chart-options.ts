/**
 * Small pure choices of the token timeline chart, kept out of the component so they can be tested.
 */

/** Above this many turns the chart draws lines only: markers would merge into a thick band. */
export const MAX_TURNS_WITH_MARKERS = 50

/**
 * Whether the before/after series draw a marker on every turn. A line needs two turns: a session
 * of one turn (a single user request, a two-message transcript) would show an empty plot without
 * markers, and on short sessions they show which x positions are turns you can click.
 */
export function showTurnMarkers(turns: number): boolean {
  return turns >= 1 && turns <= MAX_TURNS_WITH_MARKERS
}
