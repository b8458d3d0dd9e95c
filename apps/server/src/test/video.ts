/**
 * Test support for live video: an app running its own Janus (VIDEO=auto), listening on a real
 * port, with an admin client of that Janus to look at its mountpoints and viewers.
 */
import { JanusClient } from '../modules/video/janus-client.js';
import { startTestApp } from './app.js';
import { listen } from './sockets.js';

/** Resolves once the server's Janus answers; give its `beforeAll` a minute on a slow machine. */
export async function startOwnJanusTestApp() {
  const testApp = await startTestApp({ VIDEO: 'auto' });
  await testApp.app.videoStarted();
  const host = await listen(testApp.app);
  const supervisor = testApp.app.video.supervisor;
  if (!supervisor) throw new Error('the server did not start its Janus');
  return { testApp, host, janusAdmin: new JanusClient(supervisor.httpUrl, supervisor.adminKey) };
}
