#!/usr/bin/env bash
# The UI's own tests, from the repo root: unit tests (vitest) and browser tests
# of every screen against the built ui/dist (playwright-core driving the
# system Chromium, the host mocked). Ends with one line "N passed, N failed"
# summing both suites.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

if [ ! -x /usr/bin/chromium ]; then
  echo "ui-tests: installing chromium (Debian package)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
    echo "ui-tests: could not install chromium"; echo "0 passed, 1 failed"; exit 1
  fi
fi

# shellcheck source=scripts/lib/ui-fresh.sh
source scripts/lib/ui-fresh.sh
cd ui || exit 1
# npm ci when node_modules is missing or older than the lock file.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund || { echo "0 passed, 1 failed"; exit 1; }
fi
mkdir -p test-results
rm -f test-results/unit.json test-results/browser.json

status=0
# The browser tests and the mock host are type-checked against the bindings and the fixtures.
npx tsc --noEmit -p tests/browser || status=1
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/unit.json || status=1
if ui_dist_fresh . || { npm run build && ui_mark_built .; }; then
  npx vitest run --config vitest.browser.config.ts --reporter=default --reporter=json --outputFile.json=test-results/browser.json || status=1
else
  echo "ui-tests: npm run build failed"
  status=1
fi

# shellcheck disable=SC2016 # JavaScript, not shell: its `${…}` are the script's own.
node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  for (const [f, expected] of [["test-results/unit.json", 1], ["test-results/browser.json", 1]]) {
    try {
      const r = JSON.parse(fs.readFileSync(f, "utf8"));
      passed += r.numPassedTests;
      failed += r.numFailedTests;
      // A test file that failed before its tests ran (a hook, an import) counts once.
      if (!r.numFailedTests && r.numFailedTestSuites) failed += r.numFailedTestSuites;
    } catch { failed += expected; }
  }
  if (process.argv[1] === "1" && failed === 0) failed = 1;
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
' "$status"
