import logoUrl from '../../assets/logo.svg';

/** The Telerace mark (src/assets/logo.svg, also the favicon); decorative next to the wordmark. */
export function LogoMark({ className }: { className?: string }) {
  return <img src={logoUrl} alt="" className={className} width={32} height={32} />;
}
