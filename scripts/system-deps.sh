#!/usr/bin/env bash
# The system packages `npm test` needs beyond npm: PostgreSQL server binaries (the suite starts a throwaway cluster
# itself when DATABASE_URL is unset), Chromium (the browser tests drive it with playwright-core, which cannot
# download a browser here), and the tools that check deploy/: nginx (`nginx -t`), prometheus (promtool), systemd
# (systemd-analyze verify), openssl (a throwaway certificate) and certutil (Chromium trusting that CA). Runs first in `npm test`. It installs only what is
# missing, so a ready machine pays nothing; as root on Debian it installs with apt-get, anywhere else it stops with the one command to run.
set -euo pipefail

need=()
if [ -z "${DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  need+=(postgresql)
fi
if ! { [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; } && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  need+=(chromium)
fi
if ! { [ -n "${NGINX_PATH:-}" ] && [ -x "$NGINX_PATH" ]; } && [ ! -x /usr/sbin/nginx ]; then
  need+=(nginx)
fi
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# certutil: the rehearsal's Chromium trusts the throwaway CA through an NSS database, as a Linux desktop does.
command -v certutil >/dev/null 2>&1 || need+=(libnss3-tools)
[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "npm test needs system packages that are missing: ${need[*]}." >&2
  echo "Install them, then run npm test again. On Debian or Ubuntu:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
  echo "(Or set DATABASE_URL to a PostgreSQL server the suite may create databases on, and CHROMIUM_PATH to a Chromium.)" >&2
  exit 1
fi

echo "npm test: installing missing system packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
# The packaged cluster is not used: the suite runs its own.
if command -v pg_lsclusters >/dev/null 2>&1; then
  pg_lsclusters -h 2>/dev/null | while read -r version name _; do
    pg_ctlcluster "$version" "$name" stop >/dev/null 2>&1 || true
  done
fi
# Only their binaries are used (nginx -t, promtool): the daemons the packages enable are not.
for service in nginx prometheus; do
  case " ${need[*]} " in *" $service "*)
    if command -v systemctl >/dev/null 2>&1; then systemctl disable --now "$service" >/dev/null 2>&1 || true; fi ;;
  esac
done
