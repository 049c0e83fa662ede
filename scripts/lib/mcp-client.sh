#!/usr/bin/env bash
# The MCP client of `dcplugin mcp`'s tests (crates/dcplugin/tests/mcp_cli.rs):
# the official Python SDK, the `mcp` package, in a virtual environment of the
# build folder, `${CARGO_TARGET_DIR:-target}/mcp-client`, where the test looks
# for it. Made once; run again, it only checks that the package imports.
# scripts/test runs it before the workspace's tests; run it by hand before
# `cargo test -p dcplugin --features test-net --test mcp_cli`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/lib/setup.sh
source scripts/lib/setup.sh

# The SDK version the tests were written against (protocol 2025-11-25 through
# initialize, elicitation in form mode).
MCP_SDK="mcp==2.3.0"

venv="${CARGO_TARGET_DIR:-target}/mcp-client"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import mcp' 2>/dev/null; then
  echo "mcp-client: mcp $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') in $venv"
  exit 0
fi
# Debian's python3 makes a virtual environment only with python3-venv.
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
  ensure_packages python3-venv
fi
say "The tests' MCP client: python3 -m venv $venv, then pip install $MCP_SDK"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$MCP_SDK"
"$venv/bin/python" -c 'import mcp' || die "the MCP SDK ($MCP_SDK) does not import in $venv"
echo "mcp-client: $MCP_SDK in $venv"
