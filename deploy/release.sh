#!/usr/bin/env bash
# Upgrades a Telerace site without building under the running server (docs/operations.md
# "Upgrades and migrations"): each release is a complete folder of its own — checkout,
# node_modules, builds — made beside the running one; the instances switch to it one at a time.
#
#   sudo /opt/telerace/current/deploy/release.sh deploy <git ref>   build, check, switch, restart
#   sudo /opt/telerace/current/deploy/release.sh rollback [<release>]  back to the previous one
#   /opt/telerace/current/deploy/release.sh list
#
# Options (before the command): --stop-all (stop every instance, start one, then the others, even
# when the migrations allow a rolling restart), --force (roll back past migrations that changed
# more than they added), --no-fetch (build from the repository as it is).
#
# Under TELERACE_ROOT (/opt/telerace):
#   repo/                           a mirror of the repository (git clone --mirror <url> repo)
#   releases/<UTC time>-<commit>/   one release: `git archive` of the commit, then npm ci and the build
#   current -> releases/…           what the units run (WorkingDirectory=/opt/telerace/current)
#   previous -> releases/…          what `rollback` goes back to
# The root belongs to the service user, who builds; the script runs as root for systemctl.
# A running server resolved `current` when it started and keeps reading its own release (its
# modules, the drive channel's worker, the web app): a switch changes what the next start runs.
#
# deploy: fetch, `git archive` into a new release folder, `npm ci && npm run build` there (as the
# owner of the root, e.g. telerace), carry the running release's web assets over (pages open in
# browsers still load their chunks), `npm run config:check` on the settings file, `npm run
# upgrade:mode` (the migrations' rule: rolling, stop-all or refuse), switch `current` atomically
# (a symlink renamed over the old one), restart: rolling — each instance in turn, its
# /api/ready awaited, then TELERACE_SETTLE seconds for nginx to take it back (fail_timeout=5s)
# before the next; stop-all — stop all, start the first, await it, start the others. A rolling
# restart whose instance does not become ready switches back and restarts it on the previous
# release. Keeps the newest TELERACE_KEEP releases (and current, previous, any a process runs in).
#
# Settings (environment): TELERACE_ROOT, TELERACE_REPO (default $TELERACE_ROOT/repo),
# TELERACE_ENV_FILE (/etc/telerace/telerace.env), TELERACE_INSTANCES (ports, e.g. "8081 8082";
# default: the running telerace@ units), TELERACE_KEEP (5), TELERACE_READY_TIMEOUT (120 s),
# TELERACE_SETTLE (6 s), and for its tests TELERACE_SYSTEMCTL (systemctl) and TELERACE_BUILD
# (npm ci --no-audit --no-fund && npm run build).
set -euo pipefail

root=${TELERACE_ROOT:-/opt/telerace}
repo=${TELERACE_REPO:-$root/repo}
env_file=${TELERACE_ENV_FILE:-/etc/telerace/telerace.env}
keep=${TELERACE_KEEP:-5}
ready_timeout=${TELERACE_READY_TIMEOUT:-120}
settle=${TELERACE_SETTLE:-6}
systemctl=${TELERACE_SYSTEMCTL:-systemctl}
build=${TELERACE_BUILD:-npm ci --no-audit --no-fund && npm run build}
releases=$root/releases

stop_all=no
force=no
fetch=yes

say() { echo "release: $*"; }
die() {
  echo "release: $*" >&2
  exit 1
}

# The build and git run as the owner of the root folder (the service user's home): root would
# leave files the service user cannot remove, and git refuses a repository owned by someone else.
builder=
as_builder() {
  if [ -n "$builder" ] && [ "$builder" != "$(id -un)" ]; then
    runuser -u "$builder" -- env HOME="$(getent passwd "$builder" | cut -d: -f6)" "$@"
  else
    "$@"
  fi
}

# The release `current` (or `previous`) points at, by name; empty when there is none.
release_of() {
  local target
  target=$(readlink "$root/$1" 2>/dev/null) || return 0
  basename "$target"
}

# The releases, newest first (their names start with the time they were made).
release_names() {
  [ ! -d "$releases" ] || find "$releases" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -r
}

# Points $1 (current or previous) at release $2: a new symlink renamed over the old one, so a
# reader sees the old release or the new one, never nothing.
point() {
  ln -sfn "releases/$2" "$root/.$1.tmp"
  mv -T "$root/.$1.tmp" "$root/$1"
}

instances() {
  if [ -n "${TELERACE_INSTANCES+set}" ]; then
    echo "$TELERACE_INSTANCES"
    return
  fi
  "$systemctl" list-units --type=service --state=active,activating --plain --no-legend 'telerace@*.service' |
    awk '{ print $1 }' | sed -n 's/^telerace@\([0-9]*\)\.service$/\1/p' | sort -n | tr '\n' ' '
}

# Polls /api/ready: 5 times a second for 2 s (a start takes about 1 s), then once a second, so a
# slow start stays within the API's rate limit for this address (API_RATE_LIMIT_PER_MINUTE, 300).
wait_ready() {
  local port=$1 start=$SECONDS tries=0
  until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/api/ready" 2>/dev/null; do
    [ $((SECONDS - start)) -lt "$ready_timeout" ] || return 1
    tries=$((tries + 1))
    if [ "$tries" -le 10 ]; then sleep 0.2; else sleep 1; fi
  done
}

# Every instance stops, the first starts on `current` alone (it applies the migrations), then the others.
restart_stop_all() {
  local ports port
  read -r -a ports <<<"$(instances)"
  [ "${#ports[@]}" -gt 0 ] || return 0
  say "stopping ${ports[*]}, then starting ${ports[0]} first"
  "$systemctl" stop "${ports[@]/#/telerace@}"
  "$systemctl" start "telerace@${ports[0]}"
  wait_ready "${ports[0]}" || die "telerace@${ports[0]} not ready after ${ready_timeout} s: see journalctl -u telerace@${ports[0]}; the others are stopped"
  say "telerace@${ports[0]} ready"
  for port in "${ports[@]:1}"; do "$systemctl" start "telerace@$port"; done
  for port in "${ports[@]:1}"; do
    wait_ready "$port" || die "telerace@$port not ready after ${ready_timeout} s: see journalctl -u telerace@$port"
    say "telerace@$port ready"
  done
}

# Points current at release $1 (previous at $2, the running one) and restarts the instances, in
# mode $3. A rolling restart whose instance does not get ready goes back: current to $2, previous
# to what it was, and the instances restarted so far restarted again on $2; the others never left it.
switch_to() {
  local target=$1 running=$2 mode=$3 old_previous ports port back restarted=()
  old_previous=$(release_of previous)
  [ -z "$running" ] || point previous "$running"
  point current "$target"
  say "current -> releases/$target ($mode restart)"
  read -r -a ports <<<"$(instances)"
  if [ "${#ports[@]}" -eq 0 ]; then
    say "no telerace@ instance runs: nothing to restart (start them: systemctl start telerace@8081 …)"
    return 0
  fi
  if [ "$mode" = stop-all ]; then
    restart_stop_all
    return 0
  fi
  for port in "${ports[@]}"; do
    if [ "${#restarted[@]}" -gt 0 ] && [ "$settle" != 0 ]; then sleep "$settle"; fi
    say "restarting telerace@$port"
    "$systemctl" restart "telerace@$port"
    restarted+=("$port")
    if ! wait_ready "$port"; then
      say "telerace@$port not ready after ${ready_timeout} s: going back to $running"
      point current "$running"
      if [ -n "$old_previous" ]; then point previous "$old_previous"; else rm -f "$root/previous"; fi
      for back in "${restarted[@]}"; do
        "$systemctl" restart "telerace@$back"
        wait_ready "$back" || die "telerace@$back not ready on $running either: see journalctl -u telerace@$back"
      done
      die "rolled back to $running; releases/$target stays for a look (journalctl -u telerace@$port)"
    fi
    say "telerace@$port ready"
  done
}

# Keeps the newest $keep releases, current, previous and any a process runs in; drops the rest and
# any a failed run left unfinished.
prune() {
  local current previous in_use name n=0
  current=$(release_of current)
  previous=$(release_of previous)
  in_use=$(for cwd in /proc/[0-9]*/cwd; do readlink "$cwd" 2>/dev/null || true; done |
    awk -v under="$(cd "$releases" && pwd -P)/" 'index($0, under) == 1 { name = substr($0, length(under) + 1); sub(/\/.*/, "", name); print name }' | sort -u)
  for name in $(release_names); do
    n=$((n + 1))
    if [ "$name" = "$current" ] || [ "$name" = "$previous" ] || grep -qxF "$name" <<<"$in_use"; then continue; fi
    if [ -f "$releases/$name/.release" ] && [ "$n" -le "$keep" ]; then continue; fi
    say "removing releases/$name"
    rm -rf "${releases:?}/$name"
  done
}

# Prints the upgrade mode from release $1 (a folder) to the running `current`: its first line.
upgrade_mode() {
  local decision
  decision=$(cd "$1" && npm run --silent upgrade:mode -- "$root/current") || die "npm run upgrade:mode failed in $1"
  tail -n +2 <<<"$decision" | sed 's/^/release:   /' >&2
  head -n 1 <<<"$decision"
}

deploy() {
  local ref=$1 commit name dir running mode ports
  running=$(release_of current)
  if [ "$fetch" = yes ] && as_builder git -C "$repo" remote get-url origin >/dev/null 2>&1; then
    say "fetching $repo"
    as_builder git -C "$repo" fetch --quiet --prune --tags origin
  fi
  commit=$(as_builder git -C "$repo" rev-parse --verify --quiet "$ref^{commit}") || die "$ref: no such commit in $repo"
  name="$(date -u +%Y%m%d-%H%M%S)-${commit:0:12}"
  dir=$releases/$name
  say "building $ref ($commit) in releases/$name"
  as_builder mkdir "$dir" || die "releases/$name exists already: deploy again in a second"
  # A build that fails leaves nothing behind, and the running release untouched.
  # shellcheck disable=SC2064 # the folder of this run, expanded now
  trap "rm -rf '$dir'" EXIT
  # shellcheck disable=SC2016 # expanded by the inner shell
  as_builder bash -c 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"' _ "$repo" "$commit" "$dir"
  # The Node.js this release asks for (engines.node): its own installer puts the pinned one in
  # /usr/local when the machine's is older (docs/decisions.md "Node.js 24"), else does nothing.
  if [ -f "$dir/scripts/install-node.mjs" ]; then
    node "$dir/scripts/install-node.mjs" || die "the Node.js of $ref could not be installed; nothing was switched"
    hash -r
  fi
  (cd "$dir" && as_builder bash -c "$build") || die "the build of $ref failed; nothing was switched"
  local assets=apps/web/dist/assets
  if [ -d "$dir/$assets" ]; then
    (cd "$dir/$assets" && find . -type f | sort) | as_builder tee "$dir/.web-assets" >/dev/null
    if [ -n "$running" ] && [ -f "$releases/$running/.web-assets" ]; then
      # The running release's own chunks (not those it carried): open pages still load them.
      (cd "$releases/$running/$assets" && as_builder xargs -r -d '\n' cp -n --parents -t "$dir/$assets") <"$releases/$running/.web-assets"
    fi
  fi

  read -r -a ports <<<"$(instances)"
  if [ -f "$env_file" ]; then
    (cd "$dir" && npm run --silent config:check -- "$env_file" "PORT=${ports[0]:-8081}" HOST=127.0.0.1 DATA_DIR=/var/lib/telerace) ||
      die "$env_file does not suit this release: fix it, then deploy again; nothing was switched"
  elif [ "${#ports[@]}" -gt 0 ]; then
    die "$env_file is missing while telerace@${ports[0]} runs"
  else
    say "no $env_file yet: the settings are not checked"
  fi

  if [ -z "$running" ]; then
    mode=stop-all
    say "no current release: the instances (if any) stop, then start on this one"
  else
    mode=$(upgrade_mode "$dir")
    [ "$mode" != refuse ] || die "upgrade:mode refused to replace $running"
    [ "$stop_all" = no ] || mode=stop-all
  fi

  printf 'commit=%s\nref=%s\nbuilt=%s\n' "$commit" "$ref" "$(date -u +%FT%TZ)" | as_builder tee "$dir/.release" >/dev/null
  trap - EXIT
  switch_to "$name" "$running" "$mode"
  prune
  say "done: releases/$name runs"
}

rollback() {
  local target=${1:-$(release_of previous)} running mode
  running=$(release_of current)
  [ -n "$running" ] || die "no current release: deploy one"
  [ -n "$target" ] || die "no previous release to go back to"
  target=$(basename "$target")
  [ -f "$releases/$target/.release" ] || die "releases/$target is not a complete release"
  [ "$target" != "$running" ] || die "releases/$target is current already"
  mode=$(upgrade_mode "$releases/$target")
  if [ "$mode" = refuse ]; then
    [ "$force" = yes ] || die "releases/$target cannot run on the schema $running migrated to: restore the dump taken before the upgrade (docs/operations.md), or --force"
    mode=stop-all
  fi
  [ "$stop_all" = no ] || mode=stop-all
  switch_to "$target" "$running" "$mode"
  say "done: releases/$target runs"
}

list() {
  local current previous name mark
  current=$(release_of current)
  previous=$(release_of previous)
  for name in $(release_names); do
    mark=
    [ "$name" != "$current" ] || mark=' (current)'
    [ "$name" != "$previous" ] || mark=' (previous)'
    [ -f "$releases/$name/.release" ] || mark=' (unfinished)'
    echo "$name$mark $(sed -n 's/^ref=//p' "$releases/$name/.release" 2>/dev/null)"
  done
}

while [ $# -gt 0 ]; do
  case $1 in
  --stop-all) stop_all=yes ;;
  --force) force=yes ;;
  --no-fetch) fetch=no ;;
  --*) die "unknown option $1" ;;
  *) break ;;
  esac
  shift
done
command=${1:-}
[ $# -eq 0 ] || shift

[ "$command" != list ] || {
  list
  exit 0
}
case $command in
deploy) [ $# -eq 1 ] || die "usage: release.sh [--stop-all] [--no-fetch] deploy <git ref>" ;;
rollback) [ $# -le 1 ] || die "usage: release.sh [--stop-all] [--force] rollback [<release>]" ;;
*) die "usage: release.sh [options] deploy <git ref> | rollback [<release>] | list" ;;
esac
for tool in git curl node npm flock; do command -v "$tool" >/dev/null || die "$tool is not installed"; done

[ -d "$root" ] || die "$root does not exist (docs/operations.md \"Deploy\", step 1)"
builder=$(stat -c %U "$root")
as_builder mkdir -p "$releases"
# One run at a time: two deploys would race on the symlinks and the restarts.
exec 9>"$root/.release.lock"
flock -n 9 || die "another release.sh runs (lock $root/.release.lock)"
"$command" "$@"
