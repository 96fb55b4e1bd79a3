#!/usr/bin/env bash
# systemd-analyze verify (Debian's systemd package) on the units in deploy/systemd/.
#
# The units name /usr/local/bin/order-relay, which a CI machine does not have, and verify
# refuses a unit whose ExecStart is missing; so each unit is verified as a copy whose
# executable path is the repository's own CLI (bin/order-relay.js), every other line as
# shipped. verify only warns (exit 0) on an unknown key or a value it cannot parse, so any
# line it prints about the unit counts as a failure. A deliberately broken copy must be
# reported, or the check itself is not working. The sysusers.d file is applied to a scratch
# root. No systemd needs to be running.
set -uo pipefail
cd "$(dirname "$0")/../.."

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "systemd-verify: systemd-analyze is missing (apt-get install -y systemd)"
  exit 1
fi
executable="$PWD/bin/order-relay.js"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints what verify says about the unit file $1 (copied with the executable substituted);
# returns 1 when it exits non-zero or says anything about the unit.
verify() {
  local name copy out status
  name=$(basename "$1")
  copy="$work/$name"
  sed "s#/usr/local/bin/order-relay#${executable}#g" "$1" >"$copy"
  # Run from the scratch directory: verify also loads units it finds beside the cwd.
  out=$(cd "$work" && systemd-analyze verify --man=no "$copy" 2>&1)
  status=$?
  findings=$(grep -F "$name" <<<"$out" || true)
  if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    printf '%s\n' "${out:-systemd-analyze verify exited $status}"
    return 1
  fi
}

failed=0
units=(deploy/systemd/*.service)
for unit in "${units[@]}"; do
  if verify "$unit"; then echo "ok: $unit"; else echo "FAILED: $unit"; failed=1; fi
done

# The user the units run as, created by systemd-sysusers in a scratch root.
sysroot="$work/sysroot"
mkdir -p "$sysroot/etc"
if systemd-sysusers --root="$sysroot" "$PWD/deploy/systemd/order-relay.sysusers.conf" >/dev/null 2>&1 \
  && grep -q '^order-relay:x:[0-9]*:[0-9]*:.*:/usr/sbin/nologin$' "$sysroot/etc/passwd"; then
  echo "ok: deploy/systemd/order-relay.sysusers.conf creates the order-relay user"
else
  echo "FAILED: deploy/systemd/order-relay.sysusers.conf (systemd-sysusers --root) did not create the order-relay user"
  failed=1
fi

# The check must catch a real error: an unparsable ProtectSystem= value in the relayer's unit.
broken="$work/broken/order-relay.service"
mkdir -p "$(dirname "$broken")"
sed 's/^ProtectSystem=strict$/ProtectSystem=strictest/' deploy/systemd/order-relay.service >"$broken"
if verify "$broken" >/dev/null; then
  echo "FAILED: a unit with ProtectSystem=strictest passed, so this check would miss real errors"
  failed=1
else
  echo "ok: a broken unit is reported"
fi

[ "$failed" -eq 0 ] && echo "systemd-verify: ${#units[@]} units verified"
exit "$failed"
