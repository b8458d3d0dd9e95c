/** The lap counter LAP_COUNTER chooses, built from the races' settings. */
import type { CarByLapCounterId, LapCounter } from '../lap-counter.js';
import type { RacesConfig } from '../races.config.js';
import { CarLapCounter } from './car-lap-counter.js';
import { RotorHazardLapCounter } from './rotorhazard-lap-counter.js';
import { type LapCounterLog, ZroundLapCounter } from './zround-lap-counter.js';

export type { LapCounterLog } from './zround-lap-counter.js';

export interface LapCounterDeps {
  log: LapCounterLog;
  cars: CarByLapCounterId;
  /** Our clock, epoch ms. */
  now?: () => number;
}

export function createLapCounter(
  config: Pick<RacesConfig, 'lapCounter' | 'zroundUrl' | 'rotorhazardUrl'>,
  deps: LapCounterDeps,
): LapCounter {
  switch (config.lapCounter) {
    case 'car':
      return new CarLapCounter();
    case 'zround':
      // races.config.ts refuses zround without a URL; this guards a caller building config by hand.
      if (config.zroundUrl === null) throw new Error('LAP_COUNTER=zround needs ZROUND_URL');
      return new ZroundLapCounter({ url: config.zroundUrl, ...deps });
    case 'rotorhazard':
      if (config.rotorhazardUrl === null) throw new Error('LAP_COUNTER=rotorhazard needs ROTORHAZARD_URL');
      return new RotorHazardLapCounter({ url: config.rotorhazardUrl, ...deps });
  }
}
