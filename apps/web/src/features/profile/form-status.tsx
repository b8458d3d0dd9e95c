/** The outcome line under a form: a success or an error message, announced when it appears. */
import { Alert } from '../../components/ui/Alert';

export type FormStatus = { tone: 'success' | 'error'; text: string } | null;

export function FormStatusAlert({ status, className }: { status: FormStatus; className?: string }) {
  if (!status) return null;
  return (
    <Alert tone={status.tone} className={className}>
      {status.text}
    </Alert>
  );
}
