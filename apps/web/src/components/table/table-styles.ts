/** Class lists of the tables' cells (admin tabs, leaderboards, race page), shared so every table reads the same. */
export const headCell = 'bg-surface-2 px-2 py-2.5 align-bottom font-semibold';
export const bodyCell = 'px-2 py-2 align-middle';
/** A number column: right-aligned, digits of one width so the column lines up. */
export const numberCell = `${bodyCell} text-right font-mono tabular-nums`;
