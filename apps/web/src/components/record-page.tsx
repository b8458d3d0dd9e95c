/**
 * What the public pages of one record (a race `/races/:id`, a raffle `/raffles/:id`) share: the id
 * from the address, a query that does not retry a record that does not exist, the back link and
 * the not-found state.
 */
import { type QueryKey, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ApiError } from '../lib/api';
import { Button } from './ui/Button';
import { LinkButton } from './ui/LinkButton';
import { Panel } from './ui/Panel';

/** The record's id from `/:id` (a positive whole number), null for anything else. */
export function useRecordId(): number | null {
  const { id = '' } = useParams();
  return /^\d+$/.test(id) && Number(id) > 0 ? Number(id) : null;
}

/** The record, asked for once (a 4xx will not change by asking again); `notFound` for a bad id or a 404. */
export function useRecord<T>(
  id: number | null,
  key: (id: number) => QueryKey,
  fetch: (id: number) => Promise<T>,
  refetchInterval?: (data: T | undefined) => number | false,
) {
  const query = useQuery({
    queryKey: key(id ?? 0),
    queryFn: () => fetch(id ?? 0),
    enabled: id !== null,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 1,
    ...(refetchInterval
      ? { refetchInterval: (q: { state: { data: T | undefined } }) => refetchInterval(q.state.data) }
      : {}),
  });
  const notFound = id === null || (query.error instanceof ApiError && query.error.status === 404);
  return { query, notFound };
}

/** The texts of a record's page: each holds `back`, `eyebrow`, `notFoundTitle` and `notFound`. */
type RecordTexts = 'racePage' | 'rafflePage';

/** The page's way back (`i18nPrefix.back`). */
export function RecordBackLink({
  i18nPrefix,
  to = '/leaderboards',
}: {
  i18nPrefix: RecordTexts;
  to?: string;
}) {
  const { t } = useTranslation();
  return (
    <LinkButton to={to} variant="secondary" size="sm">
      <span aria-hidden="true">←</span> {t(`${i18nPrefix}.back`)}
    </LinkButton>
  );
}

/**
 * Back where the viewer came from: one step back in the history when they reached the page from
 * another page of the site, else (a link from a chat, a bookmark) the home page. React Router keys
 * the first page it shows `default`.
 */
export function HistoryBackLink() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const cameFromSite = useLocation().key !== 'default';
  if (!cameFromSite)
    return (
      <LinkButton to="/" variant="secondary" size="sm" data-testid="record-back">
        <span aria-hidden="true">←</span> {t('common.backHome')}
      </LinkButton>
    );
  return (
    <Button variant="secondary" size="sm" onClick={() => navigate(-1)} data-testid="record-back">
      <span aria-hidden="true">←</span> {t('common.back')}
    </Button>
  );
}

/** The not-found state (`i18nPrefix.eyebrow`, `.notFoundTitle`, `.notFound`). */
export function RecordNotFound({ i18nPrefix, testId }: { i18nPrefix: RecordTexts; testId: string }) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-xl">
      <Panel level={1} eyebrow={t(`${i18nPrefix}.eyebrow`)} title={t(`${i18nPrefix}.notFoundTitle`)}>
        <p className="text-muted" data-testid={testId}>
          {t(`${i18nPrefix}.notFound`)}
        </p>
        <div className="mt-5">
          <RecordBackLink i18nPrefix={i18nPrefix} />
        </div>
      </Panel>
    </div>
  );
}
