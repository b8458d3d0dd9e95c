/**
 * The leaderboards page (spec §2 "Leaderboards"): the all-time table, the season table (season 0,
 * named "This season": a number means nothing to a reader, issue 41) and, signed in, the member's
 * race history, as tabs kept in the URL (`?tab=history`).
 */
import { useTranslation } from 'react-i18next';
import { Panel } from '../components/ui/Panel';
import { type AdminTab, AdminTabs } from '../features/admin/AdminTabs';
import { useAuth } from '../features/auth/auth-context';
import { LeaderboardTable } from '../features/leaderboards/LeaderboardTable';
import {
  CURRENT_SEASON,
  fetchAllTime,
  fetchSeason,
  leaderboardKey,
} from '../features/leaderboards/leaderboards-api';
import { RaceHistoryTable } from '../features/leaderboards/RaceHistoryTable';

const fetchCurrentSeason = (page: number, limit: number) => fetchSeason(CURRENT_SEASON, page, limit);

export default function Leaderboards() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const tabs: AdminTab[] = [
    {
      id: 'all-time',
      label: t('leaderboards.tabs.allTime'),
      render: () => (
        <LeaderboardTable
          queryKey={leaderboardKey('all-time')}
          fetchPage={fetchAllTime}
          caption={t('leaderboards.allTimeCaption')}
          testId="leaderboard-all-time"
        />
      ),
    },
    {
      id: 'season',
      label: t('leaderboards.tabs.season'),
      render: () => (
        <LeaderboardTable
          queryKey={leaderboardKey('season')}
          fetchPage={fetchCurrentSeason}
          caption={t('leaderboards.seasonCaption')}
          testId="leaderboard-season"
        />
      ),
    },
  ];
  if (user)
    tabs.push({ id: 'history', label: t('leaderboards.tabs.history'), render: () => <RaceHistoryTable /> });
  return (
    <div className="mx-auto max-w-5xl">
      <Panel level={1} eyebrow={t('leaderboards.eyebrow')} title={t('screens.leaderboards')}>
        <AdminTabs label={t('leaderboards.sectionsLabel')} tabs={tabs} />
        {!user && <p className="mt-4 text-sm text-muted">{t('leaderboards.signInForHistory')}</p>}
      </Panel>
    </div>
  );
}
