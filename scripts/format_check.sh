#!/usr/bin/env bash
# Checks that every tracked C++ and CUDA file (*.cpp, *.hpp, *.h, *.cu, *.cuh) is formatted as the committed
# .clang-format says: prints each file that differs and how to fix it, and exits 1; 0 when all match; 2 when
# clang-format is missing (Debian package clang-format; CLANG_FORMAT=PATH picks another binary). The layout
# clang-format writes can change between its major versions: the tree is formatted with Debian 12's (14).
set -uo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-$(command -v clang-format || true)}
if [ -z "$formatter" ] || ! command -v "$formatter" >/dev/null; then
  echo "format_check: clang-format is not installed (Debian package clang-format)" >&2
  exit 2
fi
# One clang-format process checks 64 files (one a file spent most of its time starting clang-format: 83 s for
# the tree's 529 files on 2 cores), one such process a core; a batch that differs is checked file by file to
# name the files.
export formatter
differ=()
while IFS= read -r file; do
  differ+=("$file")
done < <(git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' |
  xargs -0 -n 64 -P "$(nproc)" bash -c '
    "$formatter" --style=file --dry-run -Werror "$@" >/dev/null 2>&1 && exit 0
    for file; do "$formatter" --style=file --dry-run -Werror "$file" >/dev/null 2>&1 || echo "$file"; done' _ |
  LC_ALL=C sort)
if [ ${#differ[@]} -eq 0 ]; then
  echo "format_check: every tracked C++ file matches .clang-format ($("$formatter" --version | grep -oE '[0-9]+\.[0-9.]+' | head -1))"
  exit 0
fi
printf 'format_check: %s\n' "${differ[@]}"
echo "format_check: ${#differ[@]} files differ from .clang-format; fix them with: $formatter -i --style=file FILE..."
exit 1
