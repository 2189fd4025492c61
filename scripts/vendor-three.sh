#!/usr/bin/env bash
# Refreshes the page's copy of three.js, server/web/vendor/, from the npm package pinned in
# server/vendor/package.json + package-lock.json, so that `cargo build` (which embeds
# server/web/) never needs npm. Commit what it writes.
#
#   scripts/vendor-three.sh
#
# To move to another three.js version: change the exact version in server/vendor/package.json,
# run `npm install --ignore-scripts` there (it rewrites the lock file), then this script.
#
# three.js stopped shipping minified builds, so the script minifies the two files the page
# needs with esbuild (pinned in the same lock file), keeping them as they are split upstream:
#   three.module.min.js  three.module.js (WebGLRenderer and the rest), which imports
#   three.core.min.js    three.core.js (scene graph, maths, geometries, materials)
# and copies three.js's LICENSE beside them. The page imports
# `./vendor/three.module.min.js`. It fails if the output would give the page's CSP or its
# "no HTML/code from strings" test something to object to (`eval(`, `new Function`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/server/vendor"
out="$root/server/web/vendor"
three="$src/node_modules/three"

cd "$src"
# Exactly the lock file's versions; no install scripts (esbuild's only checks its binary).
npm ci --ignore-scripts --no-audit --no-fund
version="$(node -p 'require("./node_modules/three/package.json").version')"
esbuild_version="$(node_modules/.bin/esbuild --version)"

# What three.module.js imports must be exactly three.core.js, or the copy is incomplete.
imports="$(grep -oE "from '[^']+'" "$three/build/three.module.js" | sort -u)"
if [ "$imports" != "from './three.core.js'" ]; then
  echo "vendor-three.sh: three.module.js imports more than ./three.core.js:" >&2
  echo "$imports" >&2
  exit 1
fi

mkdir -p "$out"
banner="/* three.js ${version} (MIT, see LICENSE beside this file), minified by esbuild ${esbuild_version}: scripts/vendor-three.sh */"
for name in three.core three.module; do
  node_modules/.bin/esbuild "$three/build/$name.js" --minify --format=esm --log-level=warning \
    --legal-comments=inline "--banner:js=$banner" --outfile="$out/$name.min.js"
done
# The minified module still imports the unminified file's name: point it at the copy.
module="$out/three.module.min.js"
sed -i 's#"\./three\.core\.js"#"./three.core.min.js"#g' "$module"
if grep -qE "three\.core\.js" "$module" || ! grep -q '"./three.core.min.js"' "$module"; then
  echo "vendor-three.sh: could not point three.module.min.js at three.core.min.js" >&2
  exit 1
fi
cp "$three/LICENSE" "$out/LICENSE"

for file in "$out"/*.min.js; do
  for sink in 'eval(' 'new Function'; do
    if grep -qF "$sink" "$file"; then
      echo "vendor-three.sh: $(basename "$file") contains '$sink'" >&2
      exit 1
    fi
  done
done

echo "three.js $version → server/web/vendor/:"
for file in "$out"/*; do
  printf '  %-22s %9d bytes, %8d gzip -9\n' "$(basename "$file")" "$(wc -c <"$file")" "$(gzip -9c "$file" | wc -c)"
done
