/** Class lists of the tables' cells (admin tabs, leaderboards, race page), shared so every table reads the same. */
export const headCell = 'bg-surface-2 px-2 py-2.5 align-bottom font-semibold';
export const bodyCell = 'px-2 py-2 align-middle';
/**
 * A column left out on a phone (under 640 px), where the row shows its value another way (a second
 * line in the row's first cell): the table fits a 360 px screen with every value in sight.
 */
export const wideOnly = 'max-sm:hidden';
/** What shows only on a phone, in place of the columns left out there. */
export const phoneOnly = 'sm:hidden';
/** A number column: right-aligned, digits of one width so the column lines up. */
export const numberCell = `${bodyCell} text-right font-mono tabular-nums`;
