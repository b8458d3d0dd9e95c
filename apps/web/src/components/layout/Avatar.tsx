import { useState } from 'react';
import { initial } from '../../lib/username';

/** The user's picture, or the first letter of the displayed name when there is none (or it fails to load). */
export function Avatar({ username, url }: { username: string; url?: string | null }) {
  const [failed, setFailed] = useState(false);
  if (url && !failed) {
    return (
      <img
        src={url}
        alt=""
        className="size-8 shrink-0 rounded-full border border-line object-cover"
        onError={() => setFailed(true)}
      />
    );
  }
  return (
    <span
      aria-hidden="true"
      className="grid size-8 shrink-0 place-items-center rounded-full bg-accent-2 text-sm font-black text-bg"
    >
      {initial(username)}
    </span>
  );
}
