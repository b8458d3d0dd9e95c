#!/usr/bin/env bash
# Checks the deploy examples:
# - deploy/nginx/nginx.conf with deploy/nginx/telerace.conf as its site, with `nginx -t`, their
#   paths in a temporary folder and a throw-away self-signed certificate in place of Let's
#   Encrypt's (needs nginx — Debian: apt-get install nginx — and openssl; `npm run check:nginx`
#   runs them in front of a real server);
# - every systemd unit of deploy/systemd with `systemd-analyze verify`, as installed (the release
#   in /opt/telerace/current, a car's checkout in /opt/telerace: this repository stands in for
#   both); any warning fails.
# A missing tool is said and skipped, so the script runs anywhere.
#   bash deploy/check.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

if command -v systemd-analyze >/dev/null; then
  units=$(mktemp -d)
  checked=()
  shopt -s nullglob
  for unit in "$here"/systemd/*.service "$here"/systemd/*.timer; do
    name=$(basename "$unit")
    sed -e "s#/opt/telerace/current#$(dirname "$here")#g" -e "s#/opt/telerace#$(dirname "$here")#g" "$unit" >"$units/$name"
    case $name in
    *@.service) # a template is checked through an instance
      ln -s "$name" "$units/${name%@.service}@8081.service"
      checked+=("./${name%@.service}@8081.service")
      ;;
    *) checked+=("./$name") ;;
    esac
  done
  problems=$(cd "$units" && systemd-analyze verify --man=no "${checked[@]}" 2>&1 || true)
  rm -rf "$units"
  if [ -n "$problems" ]; then
    echo "$problems"
    exit 1
  fi
  echo 'deploy/check.sh: systemd-analyze accepts the units of deploy/systemd'
else
  echo 'deploy/check.sh: units not checked, systemd-analyze is not installed'
fi

if ! command -v nginx >/dev/null; then
  echo 'deploy/check.sh: nginx not checked, nginx is not installed (apt-get install nginx)'
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=telerace.example.com' \
  -keyout "$work/privkey.pem" -out "$work/fullchain.pem" 2>/dev/null

# The site as installed, with the certificate paths pointing at the throw-away one.
sed "s#/etc/letsencrypt/live/telerace.example.com/#$work/#g" "$here/nginx/telerace.conf" >"$work/telerace.conf"

# The main file as installed, with its pid, logs and temporary files in the work folder, the site
# in place of sites-enabled/, and neither the machine's conf.d/ nor its modules.
sed -e "s#^pid .*#pid $work/nginx.pid;#" \
  -e "s#^error_log .*#error_log $work/error.log;#" \
  -e "s#access_log /var/log/nginx/access.log;#access_log off;#" \
  -e '\#include /etc/nginx/modules-enabled/#d' \
  -e '\#include /etc/nginx/conf.d/#d' \
  -e "s#include /etc/nginx/sites-enabled/\*;#include $work/temp-paths.conf; include $work/telerace.conf;#" \
  "$here/nginx/nginx.conf" >"$work/nginx.conf"
for kind in client_body proxy fastcgi uwsgi scgi; do echo "${kind}_temp_path $work/$kind;"; done >"$work/temp-paths.conf"
# Workers drop to www-data only when nginx starts as root.
[ "$(id -u)" = 0 ] || sed -i '/^user /d' "$work/nginx.conf"
grep -q "include $work/telerace.conf" "$work/nginx.conf" || {
  echo 'deploy/check.sh: deploy/nginx/nginx.conf no longer includes /etc/nginx/sites-enabled/*'
  exit 1
}

nginx -t -q -p "$work" -e "$work/error.log" -c "$work/nginx.conf"
echo "deploy/check.sh: nginx $(nginx -v 2>&1 | sed 's#.*/##') accepts deploy/nginx/nginx.conf with telerace.conf"
