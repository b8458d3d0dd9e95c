/** The driving session duration (spec §3 "Settings", §7 GET/PATCH /admin/settings): 1–240 minutes. */
import { type SettingField, SettingsForm } from './SettingsForm';

const FIELDS: readonly SettingField[] = [
  { name: 'car_session_duration_minutes', label: 'carStatus.settings.minutes', limits: { min: 1, max: 240 } },
];

export function SessionDurationSettings() {
  return <SettingsForm titleId="session-duration-title" texts="carStatus.settings" fields={FIELDS} />;
}
