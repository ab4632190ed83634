#!/usr/bin/env bash
# Apache-2.0 license headers on the project's Java sources.
#
#   scripts/license-headers.sh           add the header to every Java source that lacks it
#   scripts/license-headers.sh --check   change nothing; list the sources without it and exit 1 if any
#                                        (safe for CI: read-only, no network, no build)
#
# Sources are the *.java files git knows of (tracked, or new and not ignored), so build output and
# anything in .gitignore are never touched. A file counts as having the header when one of its first
# 20 lines says "Licensed under the Apache License, Version 2.0" or carries
# "SPDX-License-Identifier: Apache-2.0". The header goes above the package line, followed by one
# blank line; nothing else in the file changes.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=add
case "${1:-}" in
  --check) mode=check ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

header() {
  cat <<'HEADER'
/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
HEADER
}

has_header() {
  head -n 20 "$1" | grep -qE 'Licensed under the Apache License, Version 2\.0|SPDX-License-Identifier: Apache-2\.0'
}

missing=0
changed=0
while IFS= read -r -d '' file; do
  [ -f "$file" ] || continue            # listed by git but deleted in the work tree
  if has_header "$file"; then
    continue
  fi
  if [ "$mode" = check ]; then
    echo "no license header: $file"
    missing=$((missing + 1))
  else
    tmp="$(mktemp "${file}.XXXXXX")"
    { header; echo; cat "$file"; } > "$tmp"
    chmod --reference="$file" "$tmp" 2>/dev/null || true
    mv "$tmp" "$file"
    changed=$((changed + 1))
  fi
done < <(git ls-files -z --cached --others --exclude-standard -- '*.java')

if [ "$mode" = check ]; then
  if [ "$missing" -gt 0 ]; then
    echo "$missing Java source(s) without the Apache-2.0 header; add it with: scripts/license-headers.sh" >&2
    exit 1
  fi
  echo "every Java source has the Apache-2.0 header"
else
  echo "added the Apache-2.0 header to $changed Java source(s)"
fi
