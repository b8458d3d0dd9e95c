/** What a table's place shows while its rows load, or when there are none (admin tabs, leaderboards, race page). */
import type { ReactNode } from 'react';
import { Spinner } from '../ui/Spinner';

export function TableLoading() {
  return (
    <div className="flex justify-center py-10">
      <Spinner size="lg" className="text-accent" />
    </div>
  );
}

export function TableEmpty({ children }: { children: ReactNode }) {
  return (
    <p className="rounded-xl border border-dashed border-line px-4 py-10 text-center text-muted">
      {children}
    </p>
  );
}
