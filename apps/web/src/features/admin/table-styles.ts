/** Class lists of the admin tables' cells, shared so every admin table reads the same. */
export const headCell = 'bg-surface-2 px-2 py-2.5 align-bottom font-semibold';
export const bodyCell = 'px-2 py-2 align-middle';
