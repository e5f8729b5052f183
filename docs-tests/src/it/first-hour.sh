#!/usr/bin/env bash
# The first hour of a new user, tested: from a copy of this repository, follow README.md's quick start for Quarkus
# and nothing else (the install command, the dependency, one annotation, the one configuration line) in an
# application that quarkus-maven-plugin creates, build it, start it, and see 200, 200, 429 with the headers, and a
# second key counting apart. Then the same on an embedded server, with the dependencies and the main class of
# docs/runtimes.md ("Embedded: Weld SE and Jersey"), word for word.
#
# Usage: first-hour.sh REPOSITORY_ROOT MAVEN_HOME WORK_DIR OUTER_LOCAL_REPOSITORY
# The build runs it (docs-tests/pom.xml, phase integration-test) with a Maven 3.9 it unpacked itself: creating a
# Quarkus application needs Maven 3.9. Its local repository is a new one in WORK_DIR, so that the install command
# really installs; what the outer build already downloaded is read from OUTER_LOCAL_REPOSITORY (Maven 3.9's
# maven.repo.local.tail), never written.
set -euo pipefail

ROOT=$(cd "$1" && pwd)
MAVEN_HOME=$2
WORK=$3
OUTER_REPO=$4
QUARKUS_VERSION=3.33.2
VERSION=0.1.0-SNAPSHOT
START=$(date +%s)

rm -rf "$WORK"
mkdir -p "$WORK/source" "$WORK/repository"
MVN=(bash "$MAVEN_HOME/bin/mvn" -B -ntp -Dmaven.repo.local="$WORK/repository" -Dmaven.repo.local.tail="$OUTER_REPO")
step() { echo "first hour, $(( $(date +%s) - START )) s: $*"; }
fail() { echo "first hour FAILED: $*" >&2; exit 1; }

APP_PID=
cleanup() {
    if [[ -n "$APP_PID" ]] && kill -0 "$APP_PID" 2>/dev/null; then
        kill "$APP_PID" 2>/dev/null || true
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

# 200, 200, 429 with the headers for one key; another key counts apart. $1: what is being checked
check() {
    local first second third other
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
    expect "$third" 'HTTP/1.1 429 Too Many Requests'
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

# waits until $1 (a log) says where the application listens; sets PORT
listening() {
    PORT=
    for _ in $(seq 1 240); do
        PORT=$(grep -o 'Listening on:\? http://127.0.0.1:[0-9]*' "$1" | grep -o '[0-9]*$' || true)
        [[ -n "$PORT" ]] && break
        kill -0 "$APP_PID" 2>/dev/null || { cat "$1"; fail "the application stopped"; }
        sleep 0.25
    done
    [[ -n "$PORT" ]] || { cat "$1"; fail "the application did not say where it listens within 60 s"; }
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

# What the rest of this script does to the application is what README.md's quick start says, word for word.
for line in '<artifactId>ratelimit-quarkus</artifactId>' '@RateLimit(permitLimit = 2, windowSeconds = 60)' \
        'ratelimit.partition-header=X-Api-Key' 'import dev.ratelimit.RateLimit;'; do
    grep -qF "$line" "$ROOT/README.md" || fail "README.md's quick start no longer says: $line"
done

step "a new Quarkus application (quarkus-maven-plugin:$QUARKUS_VERSION:create)"
(cd "$WORK" && timeout 600 "${MVN[@]}" "io.quarkus:quarkus-maven-plugin:$QUARKUS_VERSION:create" \
    -DprojectGroupId=org.acme -DprojectArtifactId=first -Dextensions=rest) > "$WORK/create.log" 2>&1 \
    || { tail -50 "$WORK/create.log"; fail "creating the application"; }
APP=$WORK/first
RESOURCE=$(grep -rl '@Path("/hello")' "$APP/src/main/java") || fail "the created application has no /hello resource"

step "the quick start: the dependency, one annotation, the one configuration line"
DEPENDENCY="<dependency><groupId>dev.ratelimit</groupId><artifactId>ratelimit-quarkus</artifactId><version>$VERSION</version></dependency>"
# before the last </dependencies>: the project's own, after dependencyManagement's
awk -v dep="$DEPENDENCY" '{ lines[NR] = $0; if ($0 ~ /<\/dependencies>/) last = NR }
    END { for (i = 1; i <= NR; i++) { if (i == last) print "        " dep; print lines[i] } }' \
    "$APP/pom.xml" > "$APP/pom.xml.new" && mv "$APP/pom.xml.new" "$APP/pom.xml"
sed -i -e 's/^package \(.*\);$/package \1;\n\nimport dev.ratelimit.RateLimit;/' \
    -e '0,/^\( *\)@GET/s//\1@RateLimit(permitLimit = 2, windowSeconds = 60)\n\1@GET/' "$RESOURCE"
grep -q '@RateLimit(permitLimit = 2, windowSeconds = 60)' "$RESOURCE" || fail "could not annotate $RESOURCE"
echo 'ratelimit.partition-header=X-Api-Key' >> "$APP/src/main/resources/application.properties"

step "mvn package"
(cd "$APP" && timeout 900 "${MVN[@]}" -q package -DskipTests) > "$WORK/package.log" 2>&1 \
    || { tail -50 "$WORK/package.log"; fail "building the application"; }

step "start it on a port of its choosing"
java -Dquarkus.http.port=0 -Dquarkus.http.host=127.0.0.1 -jar "$APP/target/quarkus-app/quarkus-run.jar" \
    > "$WORK/app.log" 2>&1 &
APP_PID=$!
listening "$WORK/app.log"
check "Quarkus"
cleanup
APP_PID=

# The embedded set-up: a new Maven project with docs/runtimes.md's dependencies and main class, the quick start's
# resource and configuration line.
step "embedded: a new project from docs/runtimes.md, \"Embedded: Weld SE and Jersey\""
EMBEDDED=$WORK/embedded
mkdir -p "$EMBEDDED/src/main/java/org/acme" "$EMBEDDED/src/main/resources/META-INF"
# the n-th fenced block of kind $2 in the section $1 of docs/runtimes.md
block() {
    awk -v heading="$1" -v kind="$2" -v n="$3" '
        $0 == "## " heading { inside = 1; next }
        inside && /^## / { exit }
        inside && !fenced && $0 == "```" kind { fenced = 1; seen++; next }
        inside && fenced && $0 == "```" { fenced = 0; next }
        inside && fenced && seen == n { print }' "$ROOT/docs/runtimes.md"
}
DEPENDENCIES=$(block "Embedded: Weld SE and Jersey" xml 1)
MAIN=$(block "Embedded: Weld SE and Jersey" java 1)
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
awk '/^```java$/ { fenced = 1; next } fenced && /^```$/ { exit } fenced { print }' "$ROOT/README.md" \
    | sed '1s/^/package org.acme;\n\nimport jakarta.ws.rs.GET;\nimport jakarta.ws.rs.Path;\n/' \
    > "$EMBEDDED/src/main/java/org/acme/GreetingResource.java"
grep -q '@RateLimit(permitLimit = 2, windowSeconds = 60)' "$EMBEDDED/src/main/java/org/acme/GreetingResource.java" \
    || fail "README.md's first Java block is not the quick start's resource"
echo 'ratelimit.partition-header=X-Api-Key' > "$EMBEDDED/src/main/resources/META-INF/microprofile-config.properties"

step "embedded: mvn package"
(cd "$EMBEDDED" && timeout 900 "${MVN[@]}" -q package dependency:build-classpath -Dmdep.outputFile=classpath.txt) \
    > "$WORK/embedded-package.log" 2>&1 || { tail -50 "$WORK/embedded-package.log"; fail "building the embedded project"; }

step "embedded: start it on a port of its choosing"
java -Dport=0 -cp "$EMBEDDED/target/classes:$(cat "$EMBEDDED/classpath.txt")" org.acme.Main > "$WORK/embedded.log" 2>&1 &
APP_PID=$!
listening "$WORK/embedded.log"
check "embedded"
step "done"
