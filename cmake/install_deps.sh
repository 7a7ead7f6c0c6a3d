#!/usr/bin/env bash
# Installs the Debian 12 packages leakhound needs, and only those that are
# missing. Idempotent; runs `apt-get update` at most once.
# Usage (as root): bash cmake/install_deps.sh [--test] [--plots]
#   (none)   what building and running leakhound need: the compiler and
#            build tools (ccache, which the build uses when it is there:
#            a machine that built leakhound before compiles only what
#            changed), the libraries, Tesseract's English and Chinese
#            data (OCR is on by default).
#   --test   also what the tests need: GoogleTest and Google Benchmark,
#            clang for the fuzzers, Postfix and slapd (their own instances
#            on loopback ports; the system's stay off), Chromium and npm for the
#            console's browser test, LibreOffice (headless), pandoc, libgsf's
#            gsf tool and poppler's pdftoppm as the producers of real legacy
#            Office, RTF, EPUB, Outlook and scanned-page files
#            (corpus/make_formats.py, tests/cli/formats/), and the real-text
#            corpora of the evaluation's small configuration (Python, Linux,
#            PostgreSQL and Perl documentation, English and Chinese manual
#            pages, groff to render them), rsyslog with its OpenSSL
#            driver (the SIEM tests' receiver, its own instance),
#            PostgreSQL 15 (the store tests' private cluster, initdb in a
#            temporary folder; the system's cluster is not used).
#   --plots  also gnuplot, for the evaluation report's figures.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libicu-dev libboost-serialization-dev libxxhash-dev librocksdb-dev
  libabsl-dev libssl-dev libxml2-dev
  libsqlite3-dev libsodium-dev libmicrohttpd-dev libtomlplusplus-dev libldap-dev
  libmagic-dev libarchive-dev libpoppler-cpp-dev libpoppler-glib-dev libgmime-3.0-dev
  libgsf-1-dev libtesseract-dev libleptonica-dev tesseract-ocr-eng
  tesseract-ocr-chi-sim libmilter-dev libsystemd-dev
  zlib1g-dev libbrotli-dev nlohmann-json3-dev libicapapi-dev
  libcurl4-openssl-dev libhyperscan-dev libcsv-dev libphonenumber-dev libpq-dev
  libacl1-dev
)
test_packages=(
  libgtest-dev libgmock-dev libbenchmark-dev sqlite3 curl brotli
  python3-prometheus-client
  python3-docx python3-openpyxl python3-odf python3-gi python3-gi-cairo
  python3-cairo gir1.2-pango-1.0 fonts-dejavu-core fonts-wqy-microhei qpdf
  clang-14 libclang-rt-14-dev postfix slapd ldap-utils python3-distributed
  python3.11-doc manpages-zh linux-doc-6.1 postgresql-doc-15 perl-doc
  manpages manpages-dev icu-devtools groff-base coreutils grep sed gzip diffutils
  findutils universal-ctags
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui
  pandoc libgsf-bin poppler-utils acl
  chromium lintian c-icap squid-openssl rsyslog rsyslog-openssl postgresql-15
)
for arg in "$@"; do
  case "$arg" in
    --test) packages+=("${test_packages[@]}")
      # The console's browser test drives Debian's Chromium with
      # playwright-core from npm (tests/cli/console/). A machine with its
      # own Node.js keeps it.
      if ! command -v npm >/dev/null 2>&1; then
        packages+=(nodejs npm)
      fi ;;
    --plots) packages+=(gnuplot-nox) ;;
    *) echo "install_deps: unknown option $arg (--test, --plots)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install_deps: missing packages: ${missing[*]}; run as root to install them" >&2
  exit 1
fi
echo "install_deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Postfix is installed for the mail-gateway tests only, unconfigured: they
# run their own instance on loopback ports (the system's stays off).
echo "postfix postfix/main_mailer_type select No configuration" |
  debconf-set-selections
# slapd likewise, for the directory tests (tests/cli/milter/private_slapd.py):
# no database of its own, the system's server stays off.
echo "slapd slapd/no_configuration boolean true" | debconf-set-selections
# c-icap and Squid (squid-openssl: ssl_bump) likewise, for the web
# channel's tests (tests/cli/icap/): they start their own on loopback ports.
# rsyslog too (tests/cli/siem/): the test runs its own rsyslogd.
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
