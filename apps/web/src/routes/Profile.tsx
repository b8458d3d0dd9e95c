/** The profile screen (spec §2): who you are, your details, avatar and bio, linked accounts, password, logout, deletion. */
import type { User } from '@telerace/protocol';
import { useTranslation } from 'react-i18next';
import { Button } from '../components/ui/Button';
import { Panel } from '../components/ui/Panel';
import { useAuth } from '../features/auth/auth-context';
import { AboutForm } from '../features/profile/AboutForm';
import { DangerZone } from '../features/profile/DangerZone';
import { DetailsForm } from '../features/profile/DetailsForm';
import { LinkedAccounts } from '../features/profile/LinkedAccounts';
import { PasswordForm } from '../features/profile/PasswordForm';
import { ProfileHeader } from '../features/profile/ProfileHeader';

export default function Profile() {
  const { t } = useTranslation();
  const { user, setUser, logout } = useAuth();
  if (!user) return null;
  const onSaved = (saved: User) => setUser(saved);
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <Panel level={1} eyebrow={t('profile.eyebrow')} title={t('screens.profile')}>
        <ProfileHeader user={user} />
      </Panel>
      <div className="grid items-start gap-6 lg:grid-cols-2">
        <div className="space-y-6">
          <Panel title={t('profile.details.title')}>
            <DetailsForm user={user} onSaved={onSaved} />
          </Panel>
          <Panel
            title={user.has_password ? t('profile.password.changeTitle') : t('profile.password.setTitle')}
          >
            <PasswordForm user={user} onSaved={onSaved} />
          </Panel>
        </div>
        <div className="space-y-6">
          <Panel title={t('profile.about.title')}>
            <AboutForm user={user} onSaved={onSaved} />
          </Panel>
          <Panel title={t('profile.linked.title')}>
            <LinkedAccounts user={user} onSaved={onSaved} />
          </Panel>
          <Panel title={t('profile.session.title')}>
            <div className="flex flex-wrap items-center justify-between gap-3">
              <p className="text-sm text-muted">{t('profile.session.text')}</p>
              <Button variant="secondary" onClick={() => void logout()}>
                {t('profile.session.logout')}
              </Button>
            </div>
          </Panel>
          <Panel title={t('profile.danger.title')}>
            <DangerZone />
          </Panel>
        </div>
      </div>
    </div>
  );
}
