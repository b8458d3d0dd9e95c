/** A read that failed with nothing to show: the error, and a button that asks again (busy while it does). */
import { Alert } from './Alert';
import { Button } from './Button';

export function LoadFailed({
  title,
  retry,
  retrying,
  onRetry,
}: {
  title: string;
  /** The button's text. */
  retry: string;
  retrying: boolean;
  onRetry: () => void;
}) {
  return (
    <Alert tone="error" title={title}>
      <Button variant="secondary" size="sm" className="mt-2" busy={retrying} onClick={onRetry}>
        {retry}
      </Button>
    </Alert>
  );
}
