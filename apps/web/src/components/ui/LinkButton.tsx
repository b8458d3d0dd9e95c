import { Link, type LinkProps } from 'react-router';
import { type ButtonSize, type ButtonVariant, buttonClasses } from './button-styles';

export interface LinkButtonProps extends LinkProps {
  variant?: ButtonVariant;
  size?: ButtonSize;
}

/** A router link that looks like a button. */
export function LinkButton({ variant = 'primary', size = 'md', className, ...rest }: LinkButtonProps) {
  return (
    <Link
      className={buttonClasses(variant, size, typeof className === 'string' ? className : undefined)}
      {...rest}
    />
  );
}
