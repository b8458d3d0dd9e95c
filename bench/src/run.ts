/** `npm run bench [-- name ...]`: runs the named benchmarks (all when none is named). */
import { apiBench } from './api.bench.js';
import { carLinkBench } from './car-link.bench.js';
import { chromiumChannelBench } from './chromium-channel.bench.js';
import { fanoutBench } from './fanout.bench.js';
import { httpBench } from './http.bench.js';
import { leaderboardsBench } from './leaderboards.bench.js';
import { lossyBench } from './lossy.bench.js';
import { raffleBench } from './raffle.bench.js';
import { relayBench } from './relay.bench.js';
import { relayChannelsBench } from './relay-channels.bench.js';
import { relayUnderLoadBench } from './relay-under-load.bench.js';
import { staticBench } from './static.bench.js';
import { videoBench } from './video.bench.js';
import { videoLossBench } from './video-loss.bench.js';
import { videoRateBench } from './video-rate.bench.js';
import { webBench } from './web.bench.js';

const BENCHES: Record<string, () => Promise<void>> = {
  api: apiBench,
  'car-link': carLinkBench,
  'chromium-channel': chromiumChannelBench,
  fanout: fanoutBench,
  http: httpBench,
  leaderboards: leaderboardsBench,
  raffle: raffleBench,
  lossy: lossyBench,
  relay: relayBench,
  'relay-channels': relayChannelsBench,
  'relay-under-load': relayUnderLoadBench,
  static: staticBench,
  video: videoBench,
  'video-loss': videoLossBench,
  'video-rate': videoRateBench,
  web: webBench,
};

const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = names.filter((n) => !(n in BENCHES));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
for (const name of names.length > 0 ? names : Object.keys(BENCHES)) {
  const run = BENCHES[name];
  if (run) await run();
}
