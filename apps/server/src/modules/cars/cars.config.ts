/** Settings of the cars: how long a control code lives, and the simulated cars of the quick start. */
import { defineSection, setting } from '../../config/define.js';
import { integerBetween } from '../../config/schemas.js';

export const carsConfig = defineSection({
  controlCodeTtlMinutes: setting({
    env: 'CONTROL_CODE_TTL_MINUTES',
    schema: integerBetween(1, 1440),
    default: '15',
    doc: 'Minutes a generated control code stays valid (1–1440); an admin generates a new one after that. A code also dies after 10 wrong tries on its car.',
  }),
  simCars: setting({
    env: 'SIM_CARS',
    schema: integerBetween(0, 20),
    default: '0',
    doc: 'Number of simulated cars (0–20). At start the server ensures cars "Sim 1"…"Sim N" exist (secrets kept in `DATA_DIR/sim-cars.json`, mode 0600), prints a fresh control code for each, and runs their car agents as child processes on the real car socket. The quick start uses 2.',
  }),
});
