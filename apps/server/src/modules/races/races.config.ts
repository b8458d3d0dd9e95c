/** Settings of the races: which lap counter the server listens to, and where it is. */
import { LAP_COUNTER_KINDS } from '@telerace/protocol';
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';
import { httpUrl, urlOf } from '../../config/schemas.js';

/** `tcp://host:port`: a decoder is reached at one host and one port, nothing else. */
const tcpUrl = () =>
  urlOf(['tcp'], 'a').refine((url) => {
    const parsed = new URL(url);
    return (
      parsed.hostname !== '' && parsed.port !== '' && (parsed.pathname === '' || parsed.pathname === '/')
    );
  }, 'must be a tcp://host:port URL');

export const racesConfig = defineSection(
  {
    lapCounter: setting({
      env: 'LAP_COUNTER',
      schema: z.enum(LAP_COUNTER_KINDS, `must be one of ${LAP_COUNTER_KINDS.join(', ')}`),
      default: 'car',
      doc: '`car`: each car reports its own finish-line passes (only the simulated cars do: real cars need a lap timer, docs/races.md); `zround`: a ZRound "Free LapCounter" decoder (e.g. RiCino) at `ZROUND_URL`; `rotorhazard`: a RotorHazard timer at `ROTORHAZARD_URL`. Transponder / pilot ids are set per car in the Car Status tab.',
    }),
    zroundUrl: setting({
      env: 'ZROUND_URL',
      schema: tcpUrl(),
      default: null,
      doc: 'The decoder speaking the ZRound "Free LapCounter" protocol, `tcp://host:port` (required with `LAP_COUNTER=zround`). The server connects to it and reconnects with backoff.',
    }),
    rotorhazardUrl: setting({
      env: 'ROTORHAZARD_URL',
      schema: httpUrl(),
      default: null,
      doc: 'The RotorHazard timer, `http(s)://host:port` (required with `LAP_COUNTER=rotorhazard`); reached over Socket.IO.',
    }),
  },
  (values) => {
    if (values.lapCounter === 'zround' && values.zroundUrl === null) {
      throw configError('LAP_COUNTER=zround needs ZROUND_URL (tcp://host:port)');
    }
    if (values.lapCounter === 'rotorhazard' && values.rotorhazardUrl === null) {
      throw configError('LAP_COUNTER=rotorhazard needs ROTORHAZARD_URL (http(s)://host:port)');
    }
    return values;
  },
);

export type RacesConfig = ReturnType<typeof racesConfig.build>;
