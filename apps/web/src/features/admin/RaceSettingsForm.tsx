/**
 * The race settings of the Race Control tab (issue 12): countdown 3–10 s, race length 1–30 min,
 * minimum lap time 1–60 s (RACE_SETTINGS_LIMITS), checked here first, saved with a partial PATCH.
 */
import { RACE_SETTINGS_LIMITS } from '@telerace/protocol';
import { type SettingField, SettingsForm } from './SettingsForm';

const FIELDS: readonly SettingField[] = [
  {
    name: 'race_countdown_seconds',
    label: 'raceControl.settings.countdown',
    limits: RACE_SETTINGS_LIMITS.countdownSeconds,
  },
  {
    name: 'race_length_minutes',
    label: 'raceControl.settings.length',
    limits: RACE_SETTINGS_LIMITS.raceLengthMinutes,
  },
  {
    name: 'min_lap_time_seconds',
    label: 'raceControl.settings.minLap',
    limits: RACE_SETTINGS_LIMITS.minLapSeconds,
  },
];

export function RaceSettingsForm() {
  return (
    <SettingsForm
      titleId="race-settings-title"
      texts="raceControl.settings"
      fields={FIELDS}
      saveTestId="race-settings-save"
    />
  );
}
