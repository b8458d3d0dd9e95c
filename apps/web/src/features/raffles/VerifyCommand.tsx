/** The raffle page's verification command (`npm run verify-raffle -- <url>`) with a copy button. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';

type Copy = 'idle' | 'copied' | 'failed';

export function VerifyCommand({ command }: { command: string }) {
  const { t } = useTranslation();
  const [copy, setCopy] = useState<Copy>('idle');
  const onCopy = () => {
    // The clipboard is refused outside secure contexts and by some browsers' settings.
    const write = navigator.clipboard?.writeText(command) ?? Promise.reject(new Error('no clipboard'));
    write.then(
      () => setCopy('copied'),
      () => setCopy('failed'),
    );
  };
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-stretch gap-2">
        <code
          data-testid="raffle-verify-command"
          className="min-w-0 grow basis-64 rounded-lg border border-line bg-bg px-3 py-2 font-mono text-sm wrap-anywhere select-all"
        >
          {command}
        </code>
        <Button variant="secondary" size="sm" onClick={onCopy} data-testid="raffle-verify-copy">
          {copy === 'copied' ? t('rafflePage.copied') : t('rafflePage.copy')}
        </Button>
      </div>
      <p role="status" className="text-xs text-muted">
        {copy === 'failed' ? t('rafflePage.copyFailed') : null}
      </p>
    </div>
  );
}
