/** Class lists shared by the admin tables so both read the same. */
export const tableFrame = 'overflow-x-auto rounded-xl border border-line';
export const tableClasses = 'w-full border-collapse text-left text-sm';
export const headCell = 'bg-surface-2 px-2 py-2.5 align-bottom font-semibold';
export const bodyCell = 'px-2 py-2 align-middle';
