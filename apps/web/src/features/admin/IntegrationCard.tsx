/**
 * One integration of the admin Integrations tab (issue 14): its state as a badge (a dot and a
 * word, never colour alone), what it is connected to, since when it is in that state, its last
 * error and when (kept after a recovery, so a flapping connection shows), and "Send test message"
 * where the platform has a chat the bot can write to.
 */
import { useQueryClient } from '@tanstack/react-query';
import type { IntegrationState, IntegrationStatus } from '@telerace/protocol';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';
import { cx } from '../../lib/cx';
import { formatRelativeTime } from '../../lib/relative-time';
import { FormStatusAlert } from '../profile/form-status';
import { useFormSave } from '../profile/use-form-save';
import { ADMIN_INTEGRATIONS_KEY, sendTestMessage } from './integrations-api';

const T = 'admin.integrations';

const STATE_STYLES: Record<IntegrationState, string> = {
  not_configured: 'border-line bg-surface-2 text-muted',
  connecting: 'border-warning/40 bg-warning/15 text-warning',
  connected: 'border-success/40 bg-success/15 text-success',
  error: 'border-danger/40 bg-danger/15 text-danger',
};

export function IntegrationStateBadge({ state }: { state: IntegrationState }) {
  const { t } = useTranslation();
  return (
    <span
      data-testid="integration-state"
      data-state={state}
      className={cx(
        'inline-flex items-center gap-1.5 rounded-full border px-2 py-0.5 text-xs font-bold whitespace-nowrap uppercase tracking-wide',
        STATE_STYLES[state],
      )}
    >
      <span
        className={cx('size-2 rounded-full bg-current', state === 'connecting' && 'animate-pulse')}
        aria-hidden="true"
      />
      {t(`${T}.states.${state}`)}
    </span>
  );
}

/** "5 min ago", the full local date and time on hover. */
function TimeAgo({ at, now }: { at: string; now: Date }) {
  const { t, i18n } = useTranslation();
  return (
    <time dateTime={at} title={new Date(at).toLocaleString(i18n.resolvedLanguage)}>
      {formatRelativeTime(t, at, now)}
    </time>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-semibold text-muted">{label}</dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

/**
 * The server sends its own test text, in the chat's language. Only a connected integration can
 * send; otherwise the button is disabled and a visible hint says why (a disabled button takes no
 * focus, so a tooltip alone would not reach keyboard users).
 */
function TestMessageAction({ integration, name }: { integration: IntegrationStatus; name: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const {
    status: result,
    busy: sending,
    save: send,
  } = useFormSave(`${T}.sendFailed`, {
    write: sendTestMessage,
    saved: () => t(`${T}.sent`),
    // A failed send may have changed the connection's state or last error.
    settled: () => void queryClient.invalidateQueries({ queryKey: ADMIN_INTEGRATIONS_KEY }),
  });
  const connected = integration.state === 'connected';
  const hintId = `admin-integration-${integration.id}-test-hint`;

  return (
    <div className="space-y-2 border-t border-line pt-3">
      <Button
        variant="secondary"
        size="sm"
        disabled={!connected}
        busy={sending}
        aria-label={t(`${T}.sendTestTo`, { name })}
        aria-describedby={connected ? undefined : hintId}
        onClick={() => send(integration.id)}
      >
        {t(`${T}.sendTest`)}
      </Button>
      {!connected && (
        <p id={hintId} className="text-xs text-muted">
          {t(`${T}.notConnectedHint`)}
        </p>
      )}
      {sending && (
        <p role="status" className="text-xs text-muted">
          {t(`${T}.sending`)}
        </p>
      )}
      <FormStatusAlert status={result} />
    </div>
  );
}

export function IntegrationCard({ integration, now }: { integration: IntegrationStatus; now: Date }) {
  const { t } = useTranslation();
  const { id, state, target, lastError, lastErrorAt, since } = integration;
  const name = t(`${T}.names.${id}`);
  const headingId = `admin-integration-${id}`;
  return (
    <section
      aria-labelledby={headingId}
      data-testid={`integration-${id}`}
      data-state={state}
      className="space-y-3 rounded-xl border border-line bg-surface p-4"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h4 id={headingId} className="font-display text-lg font-black italic">
          {name}
        </h4>
        <IntegrationStateBadge state={state} />
      </div>
      {state === 'not_configured' && <p className="text-xs text-muted">{t(`${T}.notConfiguredHint`)}</p>}
      <dl className="grid gap-2 text-sm">
        <Fact label={t(`${T}.target`)}>
          {target ?? <span className="text-muted">{t(`${T}.noTarget`)}</span>}
        </Fact>
        <Fact label={t(`${T}.since`)}>
          <TimeAgo at={since} now={now} />
        </Fact>
        <Fact label={t(`${T}.lastError`)}>
          {lastError ? (
            <span data-testid="integration-last-error">
              <span className="text-danger">{lastError}</span>
              {lastErrorAt && (
                <span className="block text-xs text-muted">
                  <TimeAgo at={lastErrorAt} now={now} />
                </span>
              )}
            </span>
          ) : (
            <span className="text-muted">{t(`${T}.noError`)}</span>
          )}
        </Fact>
      </dl>
      {integration.canSendTestMessage && <TestMessageAction integration={integration} name={name} />}
    </section>
  );
}
