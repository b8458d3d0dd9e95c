/**
 * The chat bots' announcements in the Integrations tab (issue 23, docs/integrations.md
 * "Announcements"): a switch each for a raffle opened, its winners and a race's podium. A switch
 * saves at once, as one run-time setting (PATCH /admin/settings with that setting alone, audited by
 * the server); all of them wait while one is saved, and a refused save leaves the switch as it was.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  CHAT_ANNOUNCEMENT_SETTINGS,
  CHAT_ANNOUNCEMENTS,
  type ChatAnnouncementKind,
} from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { LoadFailed } from '../../components/ui/LoadFailed';
import { Spinner } from '../../components/ui/Spinner';
import { retryUnreached } from '../../lib/write-retry';
import { ADMIN_SETTINGS_KEY, fetchSettings, saveSettings } from '../cars/admin-cars-api';
import { FormStatusAlert } from '../profile/form-status';
import { useFormSave } from '../profile/use-form-save';

const T = 'admin.integrations.announcements';

export function ChatAnnouncements() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ADMIN_SETTINGS_KEY, queryFn: fetchSettings });
  const {
    status: result,
    busy: saving,
    save,
  } = useFormSave(`${T}.saveFailed`, {
    write: ({ kind, on }: { kind: ChatAnnouncementKind; on: boolean }) =>
      saveSettings({ [CHAT_ANNOUNCEMENT_SETTINGS[kind]]: on }),
    saved: (saved) => {
      queryClient.setQueryData(ADMIN_SETTINGS_KEY, saved);
      return t(`${T}.saved`);
    },
    retry: retryUnreached,
  });

  return (
    <section
      aria-labelledby="admin-chat-announcements"
      className="space-y-3 rounded-xl border border-line bg-surface-2/40 p-4"
    >
      <div>
        <h3 id="admin-chat-announcements" className="font-display text-lg font-black italic">
          {t(`${T}.title`)}
        </h3>
        <p className="mt-1 text-sm text-muted">{t(`${T}.text`)}</p>
      </div>
      {query.isPending ? (
        <Spinner className="text-accent" />
      ) : query.isError ? (
        <LoadFailed
          title={t(`${T}.loadFailed`)}
          retry={t('admin.integrations.retry')}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
        />
      ) : (
        <ul className="grid gap-3 md:grid-cols-3">
          {CHAT_ANNOUNCEMENTS.map((kind) => {
            const id = `admin-announce-${kind}`;
            return (
              <li key={kind} className="flex items-start gap-3">
                <input
                  id={id}
                  type="checkbox"
                  role="switch"
                  className="mt-0.5 size-5 shrink-0 accent-(--tr-accent)"
                  checked={query.data[CHAT_ANNOUNCEMENT_SETTINGS[kind]]}
                  aria-checked={query.data[CHAT_ANNOUNCEMENT_SETTINGS[kind]]}
                  disabled={saving}
                  aria-describedby={`${id}-hint`}
                  onChange={(event) => save({ kind, on: event.target.checked })}
                />
                <div className="min-w-0">
                  <label htmlFor={id} className="font-semibold">
                    {t(`${T}.kinds.${kind}`)}
                  </label>
                  <p id={`${id}-hint`} className="text-xs text-muted">
                    {t(`${T}.hints.${kind}`)}
                  </p>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {saving && (
        <p role="status" className="text-xs text-muted">
          {t(`${T}.saving`)}
        </p>
      )}
      <FormStatusAlert status={result} />
    </section>
  );
}
