#!/bin/sh
# A dump of Telerace's PostgreSQL database, then the oldest dumps beyond the newest KEEP removed.
# Run by deploy/systemd/telerace-backup.service as the postgres user (docs/operations.md
# "PostgreSQL: backups and restore"); by hand: sudo -u postgres deploy/backup/pg-backup.sh
#
#   TELERACE_BACKUP_DIR       the folder of the dumps (default /var/backups/telerace): it must exist,
#                             owned by the user running this, mode 0700 (the unit makes it so)
#   TELERACE_BACKUP_DATABASE  the database (default telerace)
#   TELERACE_BACKUP_KEEP      how many dumps to keep (default 14: two weeks of nightly dumps)
#   PGHOST, PGPORT, …         libpq's own, if the database is not on the local socket
#
# Each dump is <database>-<UTC time>.dump, pg_dump's custom format (pg_restore reads it), mode 0600:
# it holds the password hashes and the car secrets' hashes. It is written under a temporary name,
# checked with pg_restore --list and only then renamed, so a dump that failed never counts among
# the KEEP. Other files in the folder (a before-upgrade dump, say) are never removed.
set -eu

dir=${TELERACE_BACKUP_DIR:-/var/backups/telerace}
database=${TELERACE_BACKUP_DATABASE:-telerace}
keep=${TELERACE_BACKUP_KEEP:-14}

case $keep in
'' | *[!0-9]* | 0) echo "pg-backup: TELERACE_BACKUP_KEEP must be a whole number above 0, not '$keep'" >&2 && exit 2 ;;
esac
if [ ! -d "$dir" ] || [ ! -O "$dir" ] || [ "$(stat -c %a "$dir")" != 700 ]; then
  echo "pg-backup: $dir must be a folder owned by $(id -un) with mode 0700" >&2
  exit 2
fi

umask 077
name="$database-$(date -u +%Y-%m-%dT%H%M%SZ).dump"
partial="$dir/.$name.partial"
trap 'rm -f "$partial"' EXIT

pg_dump --format=custom --dbname="$database" --file="$partial"
pg_restore --list "$partial" >/dev/null
mv "$partial" "$dir/$name"
echo "pg-backup: $dir/$name, $(stat -c %s "$dir/$name") bytes"

# The names sort by time: everything after the newest KEEP goes.
find "$dir" -maxdepth 1 -type f -name "$database-????-??-??T??????Z.dump" -printf '%f\n' |
  sort -r | tail -n +"$((keep + 1))" | while read -r old; do
  rm -f -- "$dir/$old"
  echo "pg-backup: removed $dir/$old"
done
