#!/usr/bin/env bash
# Checks the deploy examples:
# - deploy/nginx/telerace.conf with `nginx -t`, inside a minimal nginx.conf in a temporary folder,
#   with a throw-away self-signed certificate in place of Let's Encrypt's (needs nginx — Debian:
#   apt-get install nginx-light — and openssl);
# - every systemd unit of deploy/systemd with `systemd-analyze verify`, as installed (the checkout
#   in /opt/telerace: this repository stands in for it); any warning fails.
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
    sed "s#/opt/telerace#$(dirname "$here")#g" "$unit" >"$units/$name"
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
  echo 'deploy/check.sh: nginx not checked, nginx is not installed (apt-get install nginx-light)'
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=telerace.example.com' \
  -keyout "$work/privkey.pem" -out "$work/fullchain.pem" 2>/dev/null

# The example as installed, with the certificate paths pointing at the throw-away one.
sed "s#/etc/letsencrypt/live/telerace.example.com/#$work/#g" "$here/nginx/telerace.conf" >"$work/telerace.conf"

cat >"$work/nginx.conf" <<CONF
pid $work/nginx.pid;
error_log $work/error.log;
events {}
http {
    access_log off;
    client_body_temp_path $work/client_body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    include $work/telerace.conf;
}
CONF

nginx -t -q -p "$work" -c "$work/nginx.conf"
echo "deploy/check.sh: nginx $(nginx -v 2>&1 | sed 's#.*/##') accepts deploy/nginx/telerace.conf"
