#!/usr/bin/env bash
# The Debian package (cmake/LeakhoundPackaging.cmake) end to end, on this
# machine: CPack builds it from the build tree, lintian finds no error, it
# installs with dpkg -i, its units pass `systemd-analyze verify`, `man
# leakhound` renders, the installed command runs, postinst made the user
# and its private state directory; then it is purged again.
#   package_test.sh BUILD_DIR SOURCE_DIR
# The packaged milter then runs exactly as its unit's ExecStart, as the
# unit's user, behind a private Postfix: a leak is refused, clean mail
# delivered (packaged_milter_check.py); likewise the web channel's c-icap
# behind a private Squid (packaged_icap_check.py).
# Needs root. Exit 77 (skipped) when a leakhound package is installed
# already: the test never touches an installation it did not make.
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if dpkg-query -W -f='${Status}' leakhound 2>/dev/null | grep -q "install ok installed"; then
  echo "package_test: a leakhound package is installed already; not touching it"
  exit 77
fi
state_existed=no
[[ -e /var/lib/leakhound ]] && state_existed=yes

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work" >/dev/null
deb=$(ls "$work"/leakhound_*.deb)
echo "package_test: built $(basename "$deb")"

set +e
findings=$(lintian --fail-on error "$deb" 2>&1)
rc=$?
set -e
grep -v "^running with root" <<<"$findings" || true
if ((rc != 0)); then echo "package_test: lintian reports errors" >&2; exit 1; fi
echo "package_test: lintian: no errors"

cleanup() {
  if [[ $state_existed == yes ]]; then dpkg -r leakhound >/dev/null || true
  else dpkg --purge leakhound >/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
dpkg -i "$deb" >/dev/null
echo "package_test: installed"

/usr/bin/leakhound --version | head -1
getent passwd leakhound >/dev/null
[[ $(stat -c '%a %U' /var/lib/leakhound) == "700 leakhound" ]] || {
  echo "package_test: /var/lib/leakhound is $(stat -c '%a %U' /var/lib/leakhound)" >&2; exit 1; }
grep -qx /etc/leakhound/milter.conf /var/lib/dpkg/info/leakhound.conffiles
grep -qx /etc/leakhound/policy.toml /var/lib/dpkg/info/leakhound.conffiles
grep -qx /etc/leakhound/c-icap.conf /var/lib/dpkg/info/leakhound.conffiles
grep -qx /etc/leakhound/desk.env /var/lib/dpkg/info/leakhound.conffiles
[[ $(stat -c '%a %G' /etc/leakhound/desk.env) == "640 leakhound" ]] || {
  echo "package_test: desk.env is $(stat -c '%a %G' /etc/leakhound/desk.env)" >&2; exit 1; }
/usr/bin/leakhound policy check /etc/leakhound/policy.toml >/dev/null
echo "package_test: the example policy is a conffile and has no mistakes"
man -P cat leakhound 2>/dev/null | grep -q "find passages of protected documents"
man -P cat 5 leakhound.conf 2>/dev/null | grep -q "options of the leakhound"
echo "package_test: man pages render"
systemd-analyze verify /lib/systemd/system/leakhound-milter.service \
  /lib/systemd/system/leakhound-console.service \
  /lib/systemd/system/leakhound-icap.service \
  /lib/systemd/system/leakhound-sync.service \
  /lib/systemd/system/leakhound-sync.timer \
  /lib/systemd/system/leakhound-desk.service \
  /lib/systemd/system/leakhound-desk.timer \
  /lib/systemd/system/leakhound-discover.service \
  /lib/systemd/system/leakhound-discover.timer
echo "package_test: systemd-analyze verify: clean"
# The discovery unit's command as it runs it: the packaged policy declares
# no target, so nothing is due.
/usr/bin/leakhound discover run --due --policy /etc/leakhound/policy.toml \
  --index /var/lib/leakhound/index --incidents "$work/discover.db" \
  | grep -qx "discover: no target is due"
echo "package_test: discover run --due with the packaged policy: nothing due"
bash -c 'source /usr/share/bash-completion/bash_completion 2>/dev/null;
  source /usr/share/bash-completion/completions/leakhound; complete -p leakhound' >/dev/null
# The milter as its unit runs it: ExecStart's command line, as User=, on
# an index the leakhound user made of the sample documents.
samples="$work/protected"
mkdir -m 755 "$samples" && cp "$source"/corpus/sample/protected/* "$samples"/ && chmod 644 "$samples"/*
chmod 755 "$work"
runuser -u leakhound -- /usr/bin/leakhound init --index /var/lib/leakhound/index >/dev/null
runuser -u leakhound -- /usr/bin/leakhound add --index /var/lib/leakhound/index "$samples" >/dev/null
exec_start=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/leakhound-milter.service)
port=$(sed -n 's/^socket = inet:\([0-9]*\)@.*/\1/p' /etc/leakhound/milter.conf)
runuser -u leakhound -- $exec_start &
milter=$!
stop_milter() { kill "$milter" 2>/dev/null || true; wait "$milter" 2>/dev/null || true; }
trap 'stop_milter; cleanup' EXIT
for _ in $(seq 100); do
  (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
  sleep 0.1
done
/usr/bin/python3 "$source/tests/cli/dist/packaged_milter_check.py" "$source" "$port"
stop_milter
# The web channel as leakhound-icap.service runs it: ExecStart as User=,
# with the directories systemd would make (RuntimeDirectory,
# LogsDirectory), behind a private Squid.
install -d -o leakhound -g leakhound /run/leakhound-icap /var/log/leakhound
[[ -f /usr/lib/x86_64-linux-gnu/c_icap/srv_leakhound.so ]]
icap_start=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/leakhound-icap.service)
icap_port=$(sed -n 's/^Port 127.0.0.1:\([0-9]*\)$/\1/p' /etc/leakhound/c-icap.conf)
runuser -u leakhound -- $icap_start &
icap=$!
stop_icap() {
  # c-icap's master stops its children on SIGTERM.
  kill "$icap" 2>/dev/null || true; wait "$icap" 2>/dev/null || true
}
trap 'stop_icap; cleanup' EXIT
for _ in $(seq 100); do
  grep -q "serving index" /var/log/leakhound/icap-server.log 2>/dev/null && break
  sleep 0.1
done
/usr/bin/python3 "$source/tests/cli/dist/packaged_icap_check.py" "$source" "$icap_port"
stop_icap
rm -rf /var/log/leakhound /run/leakhound-icap
trap cleanup EXIT
# The sync service's command, as its unit runs it, on a share as it is
# (issue 48): a PNG, an ELF, random bytes and a FIFO are skipped, a folder
# the leakhound user cannot list is an error (exit 2) and keeps its
# document; once readable again, the run is clean and changes nothing.
share="$work/share"
mkdir -p "$share/closed"
cp /usr/share/common-licenses/Apache-2.0 "$share/closed/apache.txt"
cp /usr/share/common-licenses/MPL-2.0 "$share/mpl.txt"
cp /bin/true "$share/program"
python3 -c 'import random, sys; random.seed(48); sys.stdout.buffer.write(random.randbytes(4096))' >"$share/random.bin"
# An 8x8 white PNG.
echo iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAAAAADhZOFXAAAADklEQVR42mP4DwUMlDEA98A/wa9cD80AAAAASUVORK5CYII= |
  base64 -d >"$share/image.png"
mkfifo "$share/pipe"
chmod -R a+rX "$share"
sync_start=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" /lib/systemd/system/leakhound-sync.service)
run_sync() {
  runuser -u leakhound -- env LEAKHOUND_SYNC_SOURCES="$share" /bin/sh -c "$sync_start" \
    >"$work/sync.out" 2>"$work/sync.err"
}
runuser -u leakhound -- /usr/bin/leakhound sync --index /var/lib/leakhound/index \
  --ocr off "$share" >/dev/null
chmod 000 "$share/closed"
rc=0; run_sync || rc=$?
grep -q "^0 added, 0 replaced, 0 removed, 1 unchanged, 4 skipped, 1 failed$" "$work/sync.out" &&
  grep -q "$share/closed: cannot read the directory: Permission denied" "$work/sync.err" &&
  [[ $rc == 2 ]] || {
  echo "package_test: sync on a share with an unreadable folder: exit $rc" >&2
  cat "$work/sync.out" "$work/sync.err" >&2; exit 1; }
runuser -u leakhound -- /usr/bin/leakhound list --index /var/lib/leakhound/index |
  grep -q "^share/closed/apache.txt " || {
  echo "package_test: sync removed the unreadable folder's document" >&2; exit 1; }
chmod 755 "$share/closed"
rc=0; run_sync || rc=$?
grep -q "^0 added, 0 replaced, 0 removed, 2 unchanged, 4 skipped, 0 failed$" "$work/sync.out" &&
  [[ $rc == 0 ]] || {
  echo "package_test: sync on a readable share: exit $rc" >&2
  cat "$work/sync.out" "$work/sync.err" >&2; exit 1; }
echo "package_test: the sync service's command skips binaries and keeps unreadable folders"
# The desk service's commands, as its unit runs them, as User=, on the
# store the milter wrote: the shipped policy has no [[escalation]] or
# [[report]], so each runs and has nothing to do.
[[ -e /var/lib/leakhound/index.incidents ]] || {
  echo "package_test: the packaged milter left no incident store" >&2; exit 1; }
while read -r desk_start; do
  runuser -u leakhound -- $desk_start >"$work/desk.out" 2>&1 || {
    echo "package_test: the desk service's '$desk_start' failed" >&2
    cat "$work/desk.out" >&2; exit 1; }
done < <(sed -n 's/^ExecStart=//p' /lib/systemd/system/leakhound-desk.service)
echo "package_test: the desk service's commands run as its user"
echo "package_test: ok"
