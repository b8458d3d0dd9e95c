/**
 * The admin's "Add entry" form of Race Control's raffle half (issue 13): a chat identity entered by
 * hand, for events without a chat integration. Only while a raffle is open; the server decides the
 * weight (the linked account's tickets, else the base). Its message belongs to the raffle's state
 * it was made in: it goes when the raffle moves on (issue 41 point 11).
 */
import { PLATFORMS, type Platform, RAFFLE_BASE_WEIGHT } from '@telerace/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/ui/Button';
import { cx } from '../../lib/cx';
import { FieldFrame, inputClasses, TextField } from '../auth/form-fields';
import { type FormStatus, FormStatusAlert } from '../profile/form-status';
import { useFormSave } from '../profile/use-form-save';
import { addRaffleEntry } from '../raffles/raffles-api';

const T = 'raceControl.raffle.addEntry';

export function RaffleEntryForm({
  open,
  raffleState,
  onAdded,
}: {
  open: boolean;
  /** Which raffle, in which state (changes when it is drawn, aborted or another opens). */
  raffleState: string;
  onAdded: () => void;
}) {
  const { t } = useTranslation();
  const [platform, setPlatform] = useState<Platform>('twitch');
  const [userId, setUserId] = useState('');
  const [name, setName] = useState('');
  const [missing, setMissing] = useState(false);
  const { status, busy, clearStatus, save } = useFormSave(`${T}.failed`, {
    write: addRaffleEntry,
    saved: (_, entry) => {
      setUserId('');
      setName('');
      onAdded();
      return t(`${T}.added`, { name: entry.displayName });
    },
  });
  // The outcome belongs to the raffle state it was about: another state hides it.
  const [submittedIn, setSubmittedIn] = useState<string | null>(null);
  const result: FormStatus =
    submittedIn !== raffleState ? null : missing ? { tone: 'error', text: t(`${T}.required`) } : status;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const entry = { platform, platformUserId: userId.trim(), displayName: name.trim() };
    clearStatus();
    setSubmittedIn(raffleState);
    setMissing(entry.platformUserId === '' || entry.displayName === '');
    if (entry.platformUserId === '' || entry.displayName === '') return;
    save(entry);
  };

  /** What the two text inputs share: an id or name is short, never autofilled, locked while closed. */
  const textInput = { maxLength: 64, autoComplete: 'off', disabled: !open || busy } as const;

  return (
    <section className="rounded-xl border border-line bg-surface-2/40 p-4" aria-labelledby="raffle-add-entry">
      <h4 id="raffle-add-entry" className="font-semibold">
        {t(`${T}.title`)}
      </h4>
      <p className="mt-1 text-sm text-muted">{t(`${T}.text`, { base: RAFFLE_BASE_WEIGHT })}</p>
      <form
        noValidate
        onSubmit={onSubmit}
        data-testid="raffle-add-entry"
        className="mt-3 grid items-end gap-3 sm:grid-cols-[9rem_1fr_1fr_auto]"
      >
        <FieldFrame label={t(`${T}.platform`)}>
          {(control) => (
            <select
              {...control}
              data-testid="raffle-entry-platform"
              className={cx(inputClasses, 'pr-8')}
              value={platform}
              disabled={!open || busy}
              onChange={(event) => setPlatform(event.target.value as Platform)}
            >
              {PLATFORMS.map((option) => (
                <option key={option} value={option}>
                  {t(`social.${option}`)}
                </option>
              ))}
            </select>
          )}
        </FieldFrame>
        <TextField
          label={t(`${T}.userId`)}
          data-testid="raffle-entry-user-id"
          value={userId}
          spellCheck={false}
          onChange={(event) => setUserId(event.target.value)}
          {...textInput}
        />
        <TextField
          label={t(`${T}.displayName`)}
          data-testid="raffle-entry-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          {...textInput}
        />
        <Button
          type="submit"
          variant="secondary"
          className="mb-px"
          data-testid="raffle-entry-submit"
          disabled={!open}
          busy={busy}
          title={open ? undefined : t('raceControl.raffle.openHint')}
        >
          {t(`${T}.submit`)}
        </Button>
      </form>
      <FormStatusAlert status={result} className="mt-3" />
    </section>
  );
}
