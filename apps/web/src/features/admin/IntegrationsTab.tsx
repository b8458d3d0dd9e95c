/**
 * The admin Integrations tab (issue 14): the join command viewers type, the open raffle's entries
 * per platform, each chat and stream integration's connection (IntegrationCard), the switches of
 * the bots' announcements (ChatAnnouncements) and the recent joins, subscriptions and donations
 * (IntegrationEvents). Read from GET /admin/integrations every
 * 5 s while the tab is shown (only the selected tab is mounted; React Query pauses the polling
 * while the browser tab is hidden).
 */
import { useQuery } from '@tanstack/react-query';
import { type AdminIntegrationsResponse, INTEGRATION_IDS, PLATFORMS, TIMERS_MS } from '@telerace/protocol';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { TableLoading } from '../../components/table/table-states';
import { Alert } from '../../components/ui/Alert';
import { LoadFailed } from '../../components/ui/LoadFailed';
import { ChatAnnouncements } from './ChatAnnouncements';
import { IntegrationCard } from './IntegrationCard';
import { IntegrationEvents } from './IntegrationEvents';
import { ADMIN_INTEGRATIONS_KEY, fetchIntegrations } from './integrations-api';

const T = 'admin.integrations';

/** The chat platforms in the order of the integrations' cards (Twitch, YouTube, Discord). */
const CHAT_PLATFORMS = INTEGRATION_IDS.filter((id): id is (typeof PLATFORMS)[number] =>
  (PLATFORMS as readonly string[]).includes(id),
);

function Box({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="rounded-xl border border-line bg-surface-2/40 px-3 py-2">
      <p className="text-xs font-semibold text-muted uppercase">{label}</p>
      <div className="mt-1">{children}</div>
    </div>
  );
}

function RaffleEntries({ entries }: { entries: AdminIntegrationsResponse['openRaffleEntries'] }) {
  const { t } = useTranslation();
  if (!entries) {
    return (
      <p className="text-lg font-bold text-muted" data-testid="integrations-no-raffle">
        {t(`${T}.noRaffle`)}
      </p>
    );
  }
  return (
    <dl aria-label={t(`${T}.entries`)} className="flex flex-wrap gap-x-5 gap-y-1">
      {CHAT_PLATFORMS.map((platform) => (
        <div key={platform} className="flex items-baseline gap-1.5">
          <dt className="text-sm text-muted">{t(`${T}.names.${platform}`)}</dt>
          <dd className="text-lg font-bold tabular-nums" data-testid={`integrations-entries-${platform}`}>
            {entries[platform] ?? 0}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function IntegrationsTab() {
  const { t } = useTranslation();
  const query = useQuery({
    queryKey: ADMIN_INTEGRATIONS_KEY,
    queryFn: fetchIntegrations,
    refetchInterval: TIMERS_MS.adminRefresh,
  });
  const now = new Date();

  if (query.isPending) return <TableLoading />;
  if (query.isError && !query.data) {
    return (
      <LoadFailed
        title={t(`${T}.loadFailed`)}
        retry={t(`${T}.retry`)}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  }
  const { joinCommand, integrations, openRaffleEntries, recentEvents } = query.data;
  const byId = new Map(integrations.map((integration) => [integration.id, integration]));

  return (
    <div className="space-y-5">
      {/* A failed refresh keeps the last read on screen, marked as possibly stale. */}
      {query.isError && <Alert tone="warning">{t(`${T}.loadFailed`)}</Alert>}
      <p className="text-sm text-muted">{t(`${T}.intro`)}</p>
      <div className="grid gap-3 sm:grid-cols-2">
        <Box label={t(`${T}.joinCommandLabel`)}>
          <p data-testid="integrations-join-command">
            <Trans
              i18nKey={`${T}.joinCommand`}
              values={{ command: joinCommand }}
              components={{
                command: <code className="rounded bg-surface-2 px-1.5 py-0.5 font-mono font-bold" />,
              }}
            />
          </p>
        </Box>
        <Box label={t(`${T}.entries`)}>
          <RaffleEntries entries={openRaffleEntries} />
        </Box>
      </div>

      <section aria-labelledby="admin-integrations-connections">
        <h3 id="admin-integrations-connections" className="mb-2 font-display text-lg font-black italic">
          {t(`${T}.connections`)}
        </h3>
        <div className="grid gap-3 md:grid-cols-2">
          {INTEGRATION_IDS.map((id) => {
            const integration = byId.get(id);
            return integration ? <IntegrationCard key={id} integration={integration} now={now} /> : null;
          })}
        </div>
      </section>

      <ChatAnnouncements />

      <IntegrationEvents events={recentEvents} now={now} />
    </div>
  );
}
