/** The Telerace mark (same drawing as public/favicon.svg): a checkered flag with speed lines. */
export function LogoMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 64 64" className={className} aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx="14" fill="#0b0c10" />
      <path d="M17 12v42" stroke="#ff5a1f" strokeWidth="5" strokeLinecap="round" />
      <g transform="translate(20 14) skewY(-10)">
        <rect width="30" height="24" rx="2" fill="#f2f3f5" />
        <path fill="#0b0c10" d="M0 0h10v8H0zM20 0h10v8H20zM10 8h10v8H10zM0 16h10v8H0zM20 16h10v8H20z" />
      </g>
      <path d="M8 48h7M6 42h9" stroke="#22d3ee" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}
