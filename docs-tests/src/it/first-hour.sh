#!/usr/bin/env bash
# The first hour of a new user, tested: from a copy of this repository, follow README.md's quick start for Quarkus
# and nothing else (the install command, the BOM import, the dependency, one annotation, the one configuration line)
# in an application that quarkus-maven-plugin creates, build it, start it, and see 200, 200, 429 with the headers,
# and a second key counting apart. Then the same on an embedded server, with the dependencies and the main class of
# docs/runtimes.md ("Embedded: Weld SE and Jersey"), word for word. Then a war on Open Liberty and one on Payara Micro,
# each a new project of docs/runtimes.md's text alone ("A war on Open Liberty or Payara Micro", and each server's
# section: its pom.xml, Liberty's server.xml, the commands that build and run it), with the quick start's resource:
# 200, 200, 429 with the headers and the status line the page says, and the limit's 429 in /openapi.
#
# FIRST_HOUR_PARTS (environment; default "quarkus embedded liberty payara") names the parts to run, for a quicker
# run by hand: the install command runs whatever it says.
#
# Usage: first-hour.sh REPOSITORY_ROOT MAVEN_HOME WORK_DIR OUTER_LOCAL_REPOSITORY
# The build runs it (docs-tests/pom.xml, phase integration-test) with a Maven 3.9 it unpacked itself: creating a
# Quarkus application needs Maven 3.9. Its local repository is a new one in WORK_DIR, so that the install command
# really installs. Third-party artifacts the outer build already downloaded are read from OUTER_LOCAL_REPOSITORY
# (Maven 3.9's maven.repo.local.tail), never written, through a copy of its directory tree made of links, without
# dev/ratelimit: every dev.ratelimit artifact the applications use comes from what README.md's install command
# installed in this run, or from nowhere (an earlier install in ~/.m2 cannot stand in for a module the command left
# out). The dependency, annotation and configuration line added to the Quarkus application are README.md's quick start
# text, taken from it as it is, as the embedded part takes docs/runtimes.md's.
set -euo pipefail

ROOT=$(cd "$1" && pwd)
MAVEN_HOME=$2
WORK=$3
OUTER_REPO=$4
QUARKUS_VERSION=3.33.2
VERSION=0.1.0-SNAPSHOT
START=$(date +%s)

rm -rf "$WORK"
mkdir -p "$WORK/source" "$WORK/repository" "$WORK/tail"
# the outer repository without dev/ratelimit: links to each of its top-level folders, and to each of dev's but ratelimit
TAIL=$WORK/tail
for entry in "$OUTER_REPO"/*; do
    if [[ "$(basename "$entry")" == dev && -d "$entry" ]]; then
        mkdir -p "$TAIL/dev"
        for group in "$entry"/*; do
            [[ "$(basename "$group")" == ratelimit ]] || ln -s "$group" "$TAIL/dev/"
        done
    else
        ln -s "$entry" "$TAIL/"
    fi
done
MVN=(bash "$MAVEN_HOME/bin/mvn" -B -ntp -Dmaven.repo.local="$WORK/repository" -Dmaven.repo.local.tail="$TAIL")
step() { echo "first hour, $(( $(date +%s) - START )) s: $*"; }
fail() { echo "first hour FAILED: $*" >&2; exit 1; }

# the n-th fenced block of kind $3 in the section $2 (a "## " heading) of the file $1
block() {
    awk -v heading="$2" -v kind="$3" -v n="$4" '
        $0 == "## " heading { inside = 1; next }
        inside && /^## / { exit }
        inside && !fenced && $0 == "```" kind { fenced = 1; seen++; next }
        inside && fenced && $0 == "```" { fenced = 0; next }
        inside && fenced && seen == n { print }' "$1"
}

# every dev.ratelimit artifact in the fresh repository was installed in this run, none downloaded (Maven records
# where each file came from in _remote.repositories: "name>=" for an install, "name>REPOSITORY=" for a download)
installed_only() {
    local downloaded
    downloaded=$(find "$WORK/repository/dev/ratelimit" -name _remote.repositories -exec grep -H '^[^#].*>[^=]' {} + || true)
    [[ -z "$downloaded" ]] || { echo "$downloaded"; fail "$1: dev.ratelimit artifacts came from elsewhere than the install command"; }
    [[ ! -e "$TAIL/dev/ratelimit" ]] || fail "the outer repository's dev/ratelimit is visible to the first hour"
}

PARTS=" ${FIRST_HOUR_PARTS:-quarkus embedded liberty payara} "
part() { [[ "$PARTS" == *" $1 "* ]]; }

APP_PID=
cleanup() {
    if [[ -n "$APP_PID" ]] && kill -0 "$APP_PID" 2>/dev/null; then
        # an application server started with setsid leads a process group of its own: stop all of it
        kill -- "-$APP_PID" 2>/dev/null || kill "$APP_PID" 2>/dev/null || true
        wait "$APP_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT

# one request: the status line and the headers, lower-cased names
ask() {
    curl -s -D - -o "$WORK/body" -H "X-Api-Key: $1" "http://127.0.0.1:$PORT/hello" | tr -d '\r' \
        | awk 'NR == 1 { print; next } { i = index($0, ":"); if (i) print tolower(substr($0, 1, i - 1)) substr($0, i) }'
}
expect() { # $1 response, $2 pattern (extended regex, a whole line)
    grep -Eqx "$2" <<< "$1" || { echo "$1"; fail "expected a line matching: $2"; }
}

# 200, 200, 429 with the headers for one key; another key counts apart. $1: what is being checked; $2: the 429's
# status line (the server's own reason phrase), by default HTTP/1.1 429 Too Many Requests
check() {
    local first second third other status429=${2:-HTTP/1.1 429 Too Many Requests}
    first=$(ask alice)
    expect "$first" 'HTTP/1.1 200 OK'
    expect "$first" 'ratelimit-limit: 2'
    expect "$first" 'ratelimit-remaining: 1'
    expect "$first" 'ratelimit-policy: "default";q=2;w=60'
    expect "$first" 'ratelimit: "default";r=1;t=[0-9]+'
    second=$(ask alice)
    expect "$second" 'HTTP/1.1 200 OK'
    expect "$second" 'ratelimit-remaining: 0'
    third=$(ask alice)
    expect "$third" "$status429"
    expect "$third" 'retry-after: [1-9][0-9]*'
    expect "$third" 'ratelimit-remaining: 0'
    expect "$third" 'ratelimit: "default";r=0;t=[1-9][0-9]*'
    expect "$third" 'content-type: application/problem\+json.*'
    grep -q '"violated-policies":\["default"\]' "$WORK/body" || { cat "$WORK/body"; fail "the 429's body"; }
    other=$(ask bob)
    expect "$other" 'HTTP/1.1 200 OK'
    expect "$other" 'ratelimit-remaining: 1'
    step "$1: 200, 200, 429 with the headers; another key counts apart"
}

# waits until $1 (a log) says where the application listens: the first match of $2 (grep -E; by default the
# embedded server's and Quarkus' line) ends with the port; sets PORT
listening() {
    local said=${2:-'Listening on:? http://127.0.0.1:[0-9]+'}
    PORT=
    for _ in $(seq 1 480); do
        PORT=$(grep -m1 -oE "$said" "$1" | head -1 | grep -oE '[0-9]+$' || true)
        [[ -n "$PORT" ]] && break
        kill -0 "$APP_PID" 2>/dev/null || { cat "$1"; fail "the application stopped"; }
        sleep 0.25
    done
    [[ -n "$PORT" ]] || { cat "$1"; fail "the application did not say where it listens within 120 s"; }
    step "listening on $PORT"
}

step "a copy of the repository, as a fresh clone has it"
tar -C "$ROOT" --exclude=./.git --exclude=target -cf - . | tar -C "$WORK/source" -xf -

# The install command, word for word from README.md ("Install").
INSTALL=$(grep -m1 -o 'mvn -q -DskipTests install -pl [^ ]* -am' "$ROOT/README.md") \
    || fail "README.md has no install command (mvn -q -DskipTests install -pl ... -am)"
step "the install command: $INSTALL"
(cd "$WORK/source" && timeout 1200 "${MVN[@]}" ${INSTALL#mvn }) > "$WORK/install.log" 2>&1 \
    || { tail -50 "$WORK/install.log"; fail "the install command"; }
[[ -f "$WORK/repository/dev/ratelimit/ratelimit-quarkus-deployment/$VERSION/ratelimit-quarkus-deployment-$VERSION.jar" ]] \
    || fail "the install command did not install ratelimit-quarkus-deployment"

installed_only "the install command"

# What the rest of this script does to the application is README.md's text, taken from it as it is: the BOM import of
# "Install" (its XML block's dependencyManagement), and the quick start's first XML block (the Quarkus extension's
# dependency), the import and the @RateLimit line of its Java block, its properties block.
BOM=$(block "$ROOT/README.md" "Install" xml 1 | awk '/<dependencies>/ { inside = 1; next } /<\/dependencies>/ { inside = 0 } inside')
DEPENDENCY=$(block "$ROOT/README.md" "Quick start" xml 1)
QUICK_JAVA=$(block "$ROOT/README.md" "Quick start" java 1)
IMPORT=$(grep -m1 -E '^import dev\.ratelimit\.' <<< "$QUICK_JAVA" || true)
ANNOTATION=$(grep -m1 -E '^ *@RateLimit\(' <<< "$QUICK_JAVA" | sed 's/^ *//' || true)
PROPERTIES=$(block "$ROOT/README.md" "Quick start" properties 1)
[[ "$BOM" == *"<dependency>"* ]] || fail "README.md's \"Install\" has no BOM import in a dependencyManagement"
[[ "$DEPENDENCY" == *"<dependency>"* ]] || fail "README.md's quick start has no dependency in its first XML block"
[[ -n "$IMPORT" && -n "$ANNOTATION" ]] || fail "README.md's quick start has no Java block with an import and a @RateLimit"
[[ -n "$PROPERTIES" ]] || fail "README.md's quick start has no properties block"

if part quarkus; then
step "a new Quarkus application (quarkus-maven-plugin:$QUARKUS_VERSION:create)"
(cd "$WORK" && timeout 600 "${MVN[@]}" "io.quarkus:quarkus-maven-plugin:$QUARKUS_VERSION:create" \
    -DprojectGroupId=org.acme -DprojectArtifactId=first -Dextensions=rest) > "$WORK/create.log" 2>&1 \
    || { tail -50 "$WORK/create.log"; fail "creating the application"; }
APP=$WORK/first
RESOURCE=$(grep -rl '@Path("/hello")' "$APP/src/main/java") || fail "the created application has no /hello resource"

step "README.md: the BOM import; the quick start: the dependency, one annotation, the one configuration line"
printf '%s\n' "$BOM" > "$WORK/bom.xml"
printf '%s\n' "$DEPENDENCY" > "$WORK/dependency.xml"
cp "$APP/pom.xml" "$APP/pom.xml.orig"
# the BOM before the first </dependencies> (dependencyManagement's, beside Quarkus' own BOM); the dependency before the
# last (the project's own)
awk -v bom="$WORK/bom.xml" -v snippet="$WORK/dependency.xml" '{ lines[NR] = $0; if ($0 ~ /<\/dependencies>/) { if (!first) first = NR; last = NR } }
    END { for (i = 1; i <= NR; i++) {
            if (i == first && first != last) { while ((getline line < bom) > 0) print "        " line }
            if (i == last) { while ((getline line < snippet) > 0) print "    " line }
            print lines[i] } }' \
    "$APP/pom.xml" > "$APP/pom.xml.new" && mv "$APP/pom.xml.new" "$APP/pom.xml"
[[ $(wc -l < "$APP/pom.xml") -ge $(( $(wc -l < "$APP/pom.xml.orig") + $(wc -l < "$WORK/bom.xml") + $(wc -l < "$WORK/dependency.xml") )) ]] \
    || fail "could not add the BOM import and the dependency to $APP/pom.xml"
awk -v import="$IMPORT" -v annotation="$ANNOTATION" '
    !imported && /^package .*;$/ { print; print ""; print import; imported = 1; next }
    !annotated && /^ *@GET/ { match($0, /^ */); print substr($0, 1, RLENGTH) annotation; annotated = 1 }
    { print }' "$RESOURCE" > "$RESOURCE.new" && mv "$RESOURCE.new" "$RESOURCE"
grep -qF "$ANNOTATION" "$RESOURCE" || fail "could not annotate $RESOURCE"
printf '%s\n' "$PROPERTIES" >> "$APP/src/main/resources/application.properties"

step "mvn package"
(cd "$APP" && timeout 900 "${MVN[@]}" -q package -DskipTests) > "$WORK/package.log" 2>&1 \
    || { tail -50 "$WORK/package.log"; fail "building the application"; }
installed_only "the Quarkus application's build"

step "start it on a port of its choosing"
java -Dquarkus.http.port=0 -Dquarkus.http.host=127.0.0.1 -jar "$APP/target/quarkus-app/quarkus-run.jar" \
    > "$WORK/app.log" 2>&1 &
APP_PID=$!
listening "$WORK/app.log"
check "Quarkus"
cleanup
APP_PID=
fi

if part embedded; then
# The embedded set-up: a new Maven project with docs/runtimes.md's dependencies and main class, the quick start's
# resource and configuration line.
step "embedded: a new project from docs/runtimes.md, \"Embedded: Weld SE and Jersey\""
EMBEDDED=$WORK/embedded
mkdir -p "$EMBEDDED/src/main/java/org/acme" "$EMBEDDED/src/main/resources/META-INF"
DEPENDENCIES=$(block "$ROOT/docs/runtimes.md" "Embedded: Weld SE and Jersey" xml 1)
MAIN=$(block "$ROOT/docs/runtimes.md" "Embedded: Weld SE and Jersey" java 1)
[[ -n "$DEPENDENCIES" && -n "$MAIN" ]] || fail "docs/runtimes.md has no dependencies or main class for the embedded set-up"
cat > "$EMBEDDED/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.acme</groupId>
  <artifactId>embedded</artifactId>
  <version>1.0.0-SNAPSHOT</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
$DEPENDENCIES
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
    </plugins>
  </build>
</project>
POM
echo "$MAIN" > "$EMBEDDED/src/main/java/org/acme/Main.java"
# the quick start's resource and configuration line, from README.md
printf '%s\n' "$QUICK_JAVA" \
    | sed '1s/^/package org.acme;\n\nimport jakarta.ws.rs.GET;\nimport jakarta.ws.rs.Path;\n/' \
    > "$EMBEDDED/src/main/java/org/acme/GreetingResource.java"
grep -q '@RateLimit(permitLimit = 2, windowSeconds = 60)' "$EMBEDDED/src/main/java/org/acme/GreetingResource.java" \
    || fail "README.md's quick start's Java block is not the resource this script calls"
printf '%s\n' "$PROPERTIES" > "$EMBEDDED/src/main/resources/META-INF/microprofile-config.properties"

step "embedded: mvn package"
(cd "$EMBEDDED" && timeout 900 "${MVN[@]}" -q package dependency:build-classpath -Dmdep.outputFile=classpath.txt) \
    > "$WORK/embedded-package.log" 2>&1 || { tail -50 "$WORK/embedded-package.log"; fail "building the embedded project"; }
installed_only "the embedded project's build"

step "embedded: start it on a port of its choosing"
java -Dport=0 -cp "$EMBEDDED/target/classes:$(cat "$EMBEDDED/classpath.txt")" org.acme.Main > "$WORK/embedded.log" 2>&1 &
APP_PID=$!
listening "$WORK/embedded.log"
check "embedded"
cleanup
APP_PID=
fi

# A war on Open Liberty and on Payara Micro: a new project of docs/runtimes.md's text alone. The common part ("A war on
# Open Liberty or Payara Micro": the Application class, the configuration file, the status line of a 429 on each
# server), and each server's section: its pom.xml (the section's first XML block), Liberty's server.xml (its second),
# and the commands that build and run it (its shell block: the mvn line, then the line that starts the server); the
# resource is the quick start's. What the script adds is said where it does: a free port, and a console log level.
RUNTIMES=$ROOT/docs/runtimes.md
WAR_SECTION="A war on Open Liberty or Payara Micro"
APPLICATION=$(block "$RUNTIMES" "$WAR_SECTION" java 1)
WAR_PROPERTIES=$(block "$RUNTIMES" "$WAR_SECTION" properties 1)
APPLICATION_CLASS=$(grep -m1 -oE 'class [A-Za-z0-9_]+ extends Application' <<< "$APPLICATION" | awk '{ print $2 }' || true)
[[ -n "$APPLICATION_CLASS" ]] || fail "docs/runtimes.md (\"$WAR_SECTION\") has no Application class"
[[ -n "$WAR_PROPERTIES" ]] || fail "docs/runtimes.md (\"$WAR_SECTION\") has no microprofile-config.properties"

# a new war project in $1 from the section $2: its pom.xml, the Application class, the configuration, the resource
new_war() {
    local dir=$1 section=$2
    mkdir -p "$dir/src/main/java/org/acme" "$dir/src/main/resources/META-INF"
    block "$RUNTIMES" "$section" xml 1 > "$dir/pom.xml"
    grep -q '<packaging>war</packaging>' "$dir/pom.xml" || fail "docs/runtimes.md (\"$section\"): the first XML block is no war's pom.xml"
    printf '%s\n' "$APPLICATION" > "$dir/src/main/java/org/acme/$APPLICATION_CLASS.java"
    printf '%s\n' "$WAR_PROPERTIES" > "$dir/src/main/resources/META-INF/microprofile-config.properties"
    printf '%s\n' "$QUICK_JAVA" \
        | sed '1s/^/package org.acme;\n\nimport jakarta.ws.rs.GET;\nimport jakarta.ws.rs.Path;\n/' \
        > "$dir/src/main/java/org/acme/GreetingResource.java"
}

# the section $1's commands: BUILD (its mvn line, without "mvn") and RUN (the line after it)
commands() {
    local lines
    lines=$(block "$RUNTIMES" "$1" sh 1)
    BUILD=$(grep -m1 -E '^mvn ' <<< "$lines" | sed 's/^mvn //' || true)
    RUN=$(grep -A1 -m1 -E '^mvn ' <<< "$lines" | sed -n 2p)
    [[ -n "$BUILD" && -n "$RUN" ]] || fail "docs/runtimes.md (\"$1\") has no shell block with an mvn line and the line that runs the server"
}

# the status line of a 429 on the server $1, as docs/runtimes.md says it
status_429() {
    grep -oE "\`HTTP/1.1 429 [A-Za-z ]+\` on $1" "$RUNTIMES" | head -1 | sed -E 's/^`([^`]*)`.*/\1/' || true
}

# the application's OpenAPI document (JSON) documents the limit and its 429
openapi_has_429() {
    local document
    document=$(curl -s -f "http://127.0.0.1:$PORT/openapi?format=JSON") || fail "$1: no OpenAPI document at /openapi"
    grep -q '"429"' <<< "$document" && grep -q '"x-ratelimit"' <<< "$document" \
        || { echo "$document" | head -80; fail "$1: /openapi documents no 429 and no x-ratelimit"; }
    step "$1: /openapi documents the 429 and the limit"
}

# waits until the deployed application answers /openapi (not limited: no permit is spent)
deployed() {
    for _ in $(seq 1 480); do
        [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/openapi" || true)" == 200 ]] && { step "$2: deployed"; return; }
        kill -0 "$APP_PID" 2>/dev/null || { tail -80 "$1"; fail "$2: the server stopped"; }
        sleep 0.25
    done
    tail -80 "$1"; fail "$2: the application did not answer /openapi within 120 s"
}

if part liberty; then
step "Open Liberty: a new war from docs/runtimes.md"
LIBERTY=$WORK/liberty
new_war "$LIBERTY" "Open Liberty"
mkdir -p "$LIBERTY/src/main/liberty/config"
block "$RUNTIMES" "Open Liberty" xml 2 > "$LIBERTY/src/main/liberty/config/server.xml"
grep -q '<featureManager>' "$LIBERTY/src/main/liberty/config/server.xml" \
    || fail "docs/runtimes.md (\"Open Liberty\"): the second XML block is no server.xml"
commands "Open Liberty"
LIBERTY_429=$(status_429 "Open Liberty")
[[ -n "$LIBERTY_429" ]] || fail "docs/runtimes.md does not say the status line of a 429 on Open Liberty"
step "Open Liberty: mvn $BUILD"
(cd "$LIBERTY" && timeout 900 "${MVN[@]}" -q $BUILD) > "$WORK/liberty-package.log" 2>&1 \
    || { tail -50 "$WORK/liberty-package.log"; fail "building the Open Liberty war"; }
installed_only "the Open Liberty project's build"
# the script's additions: HTTP_PORT=0 (server.xml's port variable: any free port, said in CWWKO0219I) and the console
# at INFO, where that message is
step "Open Liberty: $RUN (HTTP_PORT=0)"
(cd "$LIBERTY" && HTTP_PORT=0 WLP_LOGGING_CONSOLE_LOGLEVEL=INFO exec setsid $RUN) > "$WORK/liberty.log" 2>&1 &
APP_PID=$!
listening "$WORK/liberty.log" 'CWWKO0219I: TCP Channel defaultHttpEndpoint .* port [0-9]+'
deployed "$WORK/liberty.log" "Open Liberty"
check "Open Liberty" "$LIBERTY_429"
openapi_has_429 "Open Liberty"
cleanup
APP_PID=
fi

if part payara; then
step "Payara Micro: a new war from docs/runtimes.md"
PAYARA=$WORK/payara
new_war "$PAYARA" "Payara Micro"
commands "Payara Micro"
PAYARA_429=$(status_429 "Payara Micro")
[[ -n "$PAYARA_429" ]] || fail "docs/runtimes.md does not say the status line of a 429 on Payara Micro"
step "Payara Micro: mvn $BUILD"
(cd "$PAYARA" && timeout 900 "${MVN[@]}" -q $BUILD) > "$WORK/payara-package.log" 2>&1 \
    || { tail -50 "$WORK/payara-package.log"; fail "building the Payara Micro war"; }
installed_only "the Payara Micro project's build"
# the script's addition: the first free port from the documented one on (--autobindhttp), said in the log
step "Payara Micro: $RUN (--autobindhttp)"
(cd "$PAYARA" && exec setsid $RUN --autobindhttp --autobindrange 10000) > "$WORK/payara.log" 2>&1 &
APP_PID=$!
listening "$WORK/payara.log" 'bound to \[[^]]*:[0-9]+'
deployed "$WORK/payara.log" "Payara Micro"
check "Payara Micro" "$PAYARA_429"
openapi_has_429 "Payara Micro"
cleanup
APP_PID=
fi
step "done"
