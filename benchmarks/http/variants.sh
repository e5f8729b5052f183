#!/bin/bash
# Builds variants of the example jar as mvn built it (examples/todos/target), each in a directory of its own with
# a copy of lib/, to find by subtraction where the library's cost over HTTP goes:
#   full       the jar as shipped, unchanged (the same bytes as examples/todos/target/todos.jar)
#   nometrics  ratelimit-micrometer replaced by an empty jar: the engine records into no registry
#   constheaders  the header filter writes five constant headers of the same names and lengths as the real ones
#              (for the benchmark's limit of 100 000 000 a minute), formatted once: the runtime's cost of the
#              headers without ours
#   noheaders  the header filter writes no header (it still gives back the permits of a refused request)
#   headersonly  the library's filters bound as shipped, but nothing decided, counted or recorded: the deciding
#              filter returns at once and the header filter writes the five constant headers of "constheaders" on
#              every response: the floor of any limiter that writes the rate-limit headers through Jakarta REST filters
#   filtersonly  the same, with no header written either: the runtime's cost of calling the library's filters
# Each is the shipped filter with one statement added, compiled against the jar's own lib/.
#   bash benchmarks/http/variants.sh OUTDIR
#   python3 benchmarks/http/rounds.py jars --jar full=OUTDIR/full/todos.jar --jar nometrics=OUTDIR/nometrics/todos.jar \
#       --jar constheaders=OUTDIR/constheaders/todos.jar --jar noheaders=OUTDIR/noheaders/todos.jar --out ...
# Not shipped, not part of mvn verify: a measuring aid.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: variants.sh OUTDIR}
target=$root/examples/todos/target
jaxrs_jar=$(cd "$target/lib" && ls ratelimit-jaxrs-*.jar)
micrometer_jar=$(cd "$target/lib" && ls ratelimit-micrometer-*.jar)
rm -rf "$out" && mkdir -p "$out"
for v in full nometrics constheaders noheaders headersonly filtersonly; do
  mkdir "$out/$v" && cp "$target/todos.jar" "$out/$v/" && cp -r "$target/lib" "$out/$v/"
done

# an empty jar in place of ratelimit-micrometer (the class path entry stays, and finds nothing)
mkdir -p "$out/empty" && echo "no classes" > "$out/empty/README" && (cd "$out/empty" && jar cf ../empty.jar README)
cp "$out/empty.jar" "$out/nometrics/lib/$micrometer_jar"

# CLASS of ratelimit-jaxrs' internal package with STATEMENT inserted after the line ANCHOR, into VARIANT's jar
#   patch_class VARIANT CLASS ANCHOR STATEMENT
patch_class() {
  local variant=$1 class=$2 anchor=$3 statement=$4 work="$out/src-$1-$2"
  local source=$root/ratelimit-jaxrs/src/main/java/dev/ratelimit/jaxrs/internal/$class.java
  mkdir -p "$work/classes"
  ANCHOR="$anchor" STATEMENT="$statement" python3 - "$source" "$work/$class.java" <<'EOF'
import os, sys
source = open(sys.argv[1]).read()
anchor = os.environ["ANCHOR"] + "\n"
assert source.count(anchor) == 1, sys.argv[1] + " changed: update variants.sh"
open(sys.argv[2], "w").write(source.replace(anchor, anchor + os.environ["STATEMENT"] + "\n"))
EOF
  javac -nowarn -cp "$(ls "$out/$variant"/lib/*.jar | tr '\n' ':')" -d "$work/classes" "$work/$class.java"
  (cd "$work/classes" && jar uf "$out/$variant/lib/$jaxrs_jar" dev/ratelimit/jaxrs/internal/$class*.class)
}

# where the shipped filters begin, and where the header filter is about to write the headers
deciding='    public void filter(ContainerRequestContext request) {'
ending='    public void filter(ContainerRequestContext request, ContainerResponseContext response) {'
writing='        MultivaluedMap<String, Object> headers = response.getHeaders();'
# the five headers of the benchmark's limit (100 000 000 a minute) as constants, into the map "headers"
constants='            headers.put("RateLimit-Limit", single("100000000"));
            headers.put("RateLimit-Remaining", single("99999999"));
            headers.put("RateLimit-Reset", single("60"));
            headers.put("RateLimit-Policy", single("\"module\";q=100000000;w=60"));
            headers.put("RateLimit", single("\"module\";r=99999999;t=60"));'

patch_class noheaders HeaderFilter "$writing" '        if (ledger != null) { return; }'
patch_class constheaders HeaderFilter "$writing" "        if (ledger != null) {
$constants
            return;
        }"
patch_class headersonly DecidingFilter "$deciding" '        if (request != null) { return; }'
patch_class headersonly HeaderFilter "$ending" "        if (response != null) {
    $writing
$constants
            return;
        }"
patch_class filtersonly DecidingFilter "$deciding" '        if (request != null) { return; }'
patch_class filtersonly HeaderFilter "$ending" '        if (response != null) { return; }'
echo "variants in $out: full nometrics constheaders noheaders headersonly filtersonly"
