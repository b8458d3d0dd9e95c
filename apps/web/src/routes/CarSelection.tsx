/**
 * Car selection (spec §2): the cars, refreshed every 5 s. A car the user already holds, with its
 * control token still in this tab, opens its control page directly; any other asks for the code.
 */
import { useQuery } from '@tanstack/react-query';
import { type Car, TIMERS_MS } from '@telerace/protocol';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Alert } from '../components/ui/Alert';
import { LoadFailed } from '../components/ui/LoadFailed';
import { Panel } from '../components/ui/Panel';
import { Spinner } from '../components/ui/Spinner';
import { useAuth } from '../features/auth/auth-context';
import { CarCard } from '../features/cars/CarCard';
import { ConnectModal } from '../features/cars/ConnectModal';
import { CARS_QUERY_KEY, fetchCars, readControlToken } from '../features/cars/cars-api';

export default function CarSelection() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const navigate = useNavigate();
  const [selected, setSelected] = useState<Car | null>(null);
  const query = useQuery({
    queryKey: CARS_QUERY_KEY,
    queryFn: fetchCars,
    refetchInterval: TIMERS_MS.carListRefresh,
  });

  const isMine = (car: Car) => user !== null && car.current_user_id === user.id;
  const select = (car: Car) => {
    if (isMine(car) && readControlToken(car.id)) {
      navigate(`/control/${car.id}/${car.stream_id}`);
      return;
    }
    setSelected(car);
  };

  let content: ReactNode;
  if (query.isPending) {
    content = (
      <div className="flex justify-center py-16">
        <Spinner size="lg" className="text-accent" />
      </div>
    );
  } else if (query.isError && !query.data) {
    content = (
      <LoadFailed
        title={t('cars.loadFailed')}
        retry={t('cars.retry')}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else if (query.data.length === 0) {
    content = (
      <div className="rounded-xl border border-dashed border-line px-5 py-14 text-center">
        <p className="font-display text-lg font-black italic">{t('cars.emptyTitle')}</p>
        <p className="mt-1 text-sm text-muted">{t('cars.emptyText')}</p>
      </div>
    );
  } else {
    const online = query.data.filter((car) => car.status === 'online').length;
    content = (
      <>
        {query.isError && (
          <Alert tone="warning" className="mb-4">
            {t('cars.loadFailed')}
          </Alert>
        )}
        <p className="mb-4 text-sm text-muted" aria-live="polite">
          {t('cars.summary', { count: query.data.length, online })}
        </p>
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
          {query.data.map((car) => (
            <CarCard key={car.id} car={car} mine={isMine(car)} onSelect={() => select(car)} />
          ))}
        </ul>
      </>
    );
  }

  return (
    <div className="mx-auto max-w-6xl">
      <Panel level={1} eyebrow={t('cars.eyebrow')} title={t('screens.carSelection')}>
        <p className="mb-5 max-w-2xl text-muted">{t('cars.intro')}</p>
        {content}
      </Panel>
      <ConnectModal car={selected} onClose={() => setSelected(null)} />
    </div>
  );
}
