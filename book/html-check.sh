#!/bin/sh
# html-check.sh PAGE.html: open the book's HTML page in a real browser,
# headless Chromium, and fail unless it loads with every figure displayed and
# nothing reported on the page's console.
#
# A copy of the page gets a small script at the top of its <head>: it counts
# the page's errors (a script error, a resource that fails to load, a call of
# console.error) from the very start, and once the page has loaded it writes
# what it found into a <pre id="html-check"> at the end of the body: how many
# images there are, which did not decode (no natural width), how many
# formulas are MathML and the errors. Chromium's --dump-dom prints the page as
# it stands after loading, so that line can be read back. A screenshot of the
# first screen is kept beside the copy, to look at.
set -eu
page=$1
dir=$(dirname "$page")/html-check
mkdir -p "$dir"
copy=$dir/page.html
probe='<script>
(function () {
  var errors = [];
  window.addEventListener("error", function (e) {
    var t = e.target, what = t && t !== window ? "cannot load " + (t.tagName || "?") : e.message;
    errors.push(what);
  }, true);
  var report = console.error;
  console.error = function () { errors.push("console.error: " + Array.prototype.join.call(arguments, " ")); report.apply(console, arguments); };
  window.addEventListener("load", function () {
    var imgs = document.images, broken = [];
    for (var i = 0; i < imgs.length; i++)
      if (!imgs[i].complete || imgs[i].naturalWidth === 0) broken.push(imgs[i].alt.slice(0, 60) || "image " + i);
    var out = document.createElement("pre");
    out.id = "html-check";
    out.textContent = "images " + imgs.length + "; broken " + broken.length +
      "; formulas " + document.getElementsByTagName("math").length +
      "; errors " + errors.length +
      (broken.length ? "\nbroken: " + broken.join(" | ") : "") +
      (errors.length ? "\nerrors: " + errors.join(" | ") : "");
    document.body.appendChild(out);
  });
})();
</script>'
# the probe goes right after <head>, before anything else can fail (through
# the environment: awk -v would turn its \n into line breaks)
PROBE=$probe awk '{ print } !done && /<head>/ { print ENVIRON["PROBE"]; done = 1 }' "$page" > "$copy"
grep -q 'out.id = "html-check"' "$copy" ||
  { echo "html-check: no <head> in $page" >&2; exit 1; }

browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "html-check: no chromium on the PATH (apt-get install chromium)" >&2; exit 1; }
# No network, no first-run work, no sandbox (as root in a container it cannot
# start one), a profile of its own that is thrown away.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir=$profile --virtual-time-budget=10000"
# shellcheck disable=SC2086
"$browser" $flags --dump-dom "file://$(cd "$(dirname "$copy")" && pwd)/page.html" \
  > "$dir/dom.html" 2> "$dir/chromium.log" || true
# shellcheck disable=SC2086
"$browser" $flags --window-size=1000,1400 --screenshot="$dir/first-screen.png" \
  "file://$(cd "$(dirname "$copy")" && pwd)/page.html" >> "$dir/chromium.log" 2>&1 || true

result=$(sed -n '/<pre id="html-check">/,/<\/pre>/p' "$dir/dom.html" | sed -e 's/<[^>]*>//g')
if [ -z "$result" ]; then
  echo "html-check: Chromium did not finish loading $page; its log: $dir/chromium.log" >&2
  exit 1
fi
echo "html-check: $page in $("$browser" --version 2>/dev/null | head -n 1):"
printf '%s\n' "$result" | sed 's/^/  /'
images=$(printf '%s\n' "$result" | sed -n 's/^images \([0-9]*\);.*/\1/p')
broken=$(printf '%s\n' "$result" | sed -n 's/.*; broken \([0-9]*\);.*/\1/p')
errors=$(printf '%s\n' "$result" | sed -n 's/.*; errors \([0-9]*\)$/\1/p' | head -n 1)
if [ "${images:-0}" -eq 0 ] || [ "${broken:-1}" -ne 0 ] || [ "${errors:-1}" -ne 0 ]; then
  echo "html-check: the page must show every figure and report no error" >&2
  exit 1
fi
echo "html-check: every figure displayed, no errors (a screenshot: $dir/first-screen.png)"
