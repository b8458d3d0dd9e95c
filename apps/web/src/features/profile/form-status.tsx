/** The outcome line under an account form: a success or an error message, announced when it appears. */
import { Alert } from '../../components/ui/Alert';

export type FormStatus = { tone: 'success' | 'error'; text: string } | null;

export function FormStatusAlert({ status }: { status: FormStatus }) {
  if (!status) return null;
  return <Alert tone={status.tone}>{status.text}</Alert>;
}
