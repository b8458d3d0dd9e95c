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
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadFailed } from '../../components/ui/LoadFailed';
import { Spinner } from '../../components/ui/Spinner';
import { apiErrorText } from '../auth/error-text';
import { ADMIN_SETTINGS_KEY, fetchSettings, saveSettings } from '../cars/admin-cars-api';
import { type FormStatus, FormStatusAlert } from '../profile/form-status';

const T = 'admin.integrations.announcements';

export function ChatAnnouncements() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ADMIN_SETTINGS_KEY, queryFn: fetchSettings });
  const [saving, setSaving] = useState(false);
  const [result, setResult] = useState<FormStatus>(null);

  const save = async (kind: ChatAnnouncementKind, on: boolean) => {
    setSaving(true);
    setResult(null);
    try {
      const saved = await saveSettings({ [CHAT_ANNOUNCEMENT_SETTINGS[kind]]: on });
      queryClient.setQueryData(ADMIN_SETTINGS_KEY, saved);
      setResult({ tone: 'success', text: t(`${T}.saved`) });
    } catch (failure) {
      setResult({ tone: 'error', text: apiErrorText(t, i18n, failure, `${T}.saveFailed`) });
    } finally {
      setSaving(false);
    }
  };

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
                  onChange={(event) => void save(kind, event.target.checked)}
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
