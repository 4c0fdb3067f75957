#!/usr/bin/env bash
# The report as an XML parser and a browser see it, on a database tuned by replaying the recorded H100 sweep:
#   wellformed: xmllint parses the page and every standalone SVG as XML (the page is XHTML);
#   screenshot: headless Chromium renders the page; the screenshot must have ink in every 500-row band of its
#               first 4500 rows and plot colours (not only text).
# Usage: tests/report/render_in_browser.sh EVOTUNE wellformed|screenshot   (from the source folder)
# Exits 77, which ctest reports as skipped, with the reason when xmllint, Chromium or python3 is missing.
# EVOTUNE_KEEP_SCREENSHOT=FILE keeps the screenshot for a look.
set -euo pipefail
evotune=$1
mode=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

skip() {
  echo "skipped: $1"
  exit 77
}
case $mode in
  wellformed) command -v xmllint >/dev/null || skip "xmllint is not installed (Debian package libxml2-utils)" ;;
  screenshot)
    browser=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$browser" ] || skip "Chromium is not installed (Debian package chromium)"
    command -v python3 >/dev/null || skip "python3 is not installed (the PNG reader is a Python script)"
    ;;
  *) echo "unknown mode '$mode' (wellformed or screenshot)" >&2; exit 2 ;;
esac

for strategy in evolve random; do
  "$evotune" tune search_spaces/flash_attn_fwd.json --replay tests/data/sweeps/flash_attn_fwd_h100_B1_H8_S512_D64.json \
    --strategy "$strategy" --seed 1 --budget 200 --db "$work/replayed.db" >"$work/tune.log" 2>&1 ||
    { cat "$work/tune.log"; exit 1; }
done
"$evotune" report search_spaces/flash_attn_fwd.json --db "$work/replayed.db" -o "$work/report.html" --svg "$work/svg"

if [ "$mode" = wellformed ]; then
  xmllint --noout "$work/report.html"
  for svg in "$work"/svg/*.svg; do xmllint --noout "$svg"; done
  echo "well-formed: report.html and $(ls "$work"/svg | wc -l) SVG files"
  exit 0
fi

# No network, no GPU, no sandbox (CI containers have no user namespaces); its D-Bus complaints go to the log.
"$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars --window-size=1280,4500 \
  --screenshot="$work/page.png" "file://$work/report.html" >"$work/chromium.log" 2>&1 ||
  { cat "$work/chromium.log"; exit 1; }
[ -s "$work/page.png" ] || { echo "Chromium wrote no screenshot"; cat "$work/chromium.log"; exit 1; }
[ -z "${EVOTUNE_KEEP_SCREENSHOT:-}" ] || cp "$work/page.png" "$EVOTUNE_KEEP_SCREENSHOT"
read -r width height ink coloured bands < <(python3 tests/report/count_ink.py "$work/page.png")
echo "screenshot ${width}x${height}: ${ink} pixels not white, ${coloured} in plot colours, ink in ${bands} bands"
[ "$bands" = 9/9 ] || { echo "a band of the page is blank"; exit 1; }
[ "$coloured" -gt 20000 ] || { echo "too few coloured pixels: the plots did not render"; exit 1; }
[ "$ink" -gt $((width * height / 100)) ] || { echo "the page is nearly blank"; exit 1; }
