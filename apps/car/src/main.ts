/**
 * The car agent: the program that runs on each RC car (a Raspberry Pi) or simulates one, dials
 * the server's car socket and drives the motors. The drive link, the hardware backends and the
 * simulator arrive with issue 4; this entry point only reports what it is.
 */
import { parseArgs } from 'node:util';

const AGENT_VERSION = '0.1.0';

const { values } = parseArgs({
  options: { version: { type: 'boolean' }, help: { type: 'boolean' } },
  strict: true,
});

if (values.version) {
  console.info(AGENT_VERSION);
} else {
  console.info(`telerace car agent ${AGENT_VERSION}\nusage: npm run car -- --server URL --car ID --secret S`);
}
