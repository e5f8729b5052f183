package dev.ratelimit.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Application instances in JVMs of their own, each a Hazelcast member with its own store, in one cluster: together
 * they admit exactly the permit limit, for every algorithm (each alone would admit it: with the in-process store,
 * two instances with a limit of 100 admit 200). And a cluster with a member that cannot load the library's classes
 * (a plain Hazelcast member, as a grid run apart from the application is): the store finds out at start-up, counts
 * by compare-and-set, and is exact all the same.
 */
class TwoJvmsTest {

    private static final int PERMIT_LIMIT = 100;
    private static final int REQUESTS_EACH = 150;

    @Test
    void twoInstancesInOneClusterAdmitExactlyThePermitLimitInTotalWhateverTheAlgorithm() throws Exception {
        String cluster = "ratelimit-two-jvms-" + UUID.randomUUID();
        List<Process> instances = new ArrayList<>();
        try {
            Process first = instance(cluster, "-", "PROCESSOR", 2);
            instances.add(first);
            BufferedReader firstOut = reader(first);
            String port = readyPort(firstOut);
            Process second = instance(cluster, "127.0.0.1:" + port, "PROCESSOR", 2);
            instances.add(second);
            BufferedReader secondOut = reader(second);
            readyPort(secondOut);
            go(instances);
            List<String> lines = List.of(firstOut.readLine(), secondOut.readLine());
            assertExactly(lines, 2);
            assertThat(lines).allSatisfy(line -> assertThat(line).endsWith(" mode=PROCESSOR"));
            go(instances); // both done: they may end
            for (Process instance : instances) {
                assertThat(instance.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(instance.exitValue()).isZero();
            }
        } finally {
            instances.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void withAMemberThatCannotLoadTheProcessorAutoTurnsToCompareAndSetAndStaysExact() throws Exception {
        String cluster = "ratelimit-plain-member-" + UUID.randomUUID();
        List<Process> processes = new ArrayList<>();
        try {
            Process instance = instance(cluster, "-", "AUTO", 2);
            processes.add(instance);
            BufferedReader out = reader(instance);
            String port = readyPort(out);
            Process plain = plainMember(cluster, port);
            processes.add(plain);
            go(List.of(instance));
            String line = out.readLine();
            assertExactly(List.of(line), 1);
            assertThat(line).endsWith(" mode=COMPARE_AND_SET");
            go(List.of(instance));
            assertThat(instance.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(instance.exitValue()).isZero();
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
    }

    private static void assertExactly(List<String> lines, int instances) {
        int algorithms = RateLimitAlgorithm.values().length;
        int[] total = new int[algorithms];
        for (String line : lines) {
            assertThat(line).startsWith("admitted=");
            String[] admitted = line.substring("admitted=".length(), line.indexOf(' ')).split(",");
            assertThat(admitted).hasSize(algorithms);
            for (int k = 0; k < algorithms; k++) {
                total[k] += Integer.parseInt(admitted[k]);
            }
        }
        for (int k = 0; k < algorithms; k++) {
            assertThat(total[k]).as("admitted by %d instance(s) with %s: %s", instances, RateLimitAlgorithm.values()[k],
                    lines).isEqualTo(PERMIT_LIMIT);
        }
    }

    /** An application instance, which counts once the cluster has {@code members} members. */
    private static Process instance(String cluster, String join, String mode, int members) throws IOException {
        return new ProcessBuilder(java(), "-XX:TieredStopAtLevel=1", "-Dhazelcast.logging.type=none", "-cp",
                System.getProperty("java.class.path"), CountingMember.class.getName(), cluster, join, Integer.toString(members), mode,
                "two-jvms", Integer.toString(PERMIT_LIMIT), Integer.toString(REQUESTS_EACH))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /**
     * A Hazelcast member with nothing but Hazelcast and the JCache API on its class path, joining the instance at
     * {@code port}: it holds about half the counts and cannot run the library's entry processor.
     */
    private static Process plainMember(String cluster, String port) throws IOException {
        String classPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.contains("hazelcast-5") || entry.contains("cache-api"))
                .collect(Collectors.joining(File.pathSeparator));
        Path config = Files.createTempFile("plain-member", ".xml");
        Files.writeString(config, """
                <hazelcast xmlns="http://www.hazelcast.com/schema/config">
                  <cluster-name>%s</cluster-name>
                  <properties><property name="hazelcast.phone.home.enabled">false</property></properties>
                  <network>
                    <port auto-increment="false">0</port>
                    <join><multicast enabled="false"/><auto-detection enabled="false"/>
                      <tcp-ip enabled="true"><member>127.0.0.1:%s</member></tcp-ip></join>
                    <interfaces enabled="true"><interface>127.0.0.1</interface></interfaces>
                  </network>
                </hazelcast>
                """.formatted(cluster, port));
        config.toFile().deleteOnExit();
        return new ProcessBuilder(java(), "-XX:TieredStopAtLevel=1", "-Dhazelcast.config=" + config,
                "-Dhazelcast.logging.type=none", "-cp", classPath, "com.hazelcast.core.server.HazelcastMemberStarter")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static BufferedReader reader(Process process) {
        return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    private static String readyPort(BufferedReader out) throws IOException {
        String line = out.readLine();
        assertThat(line).startsWith("ready ");
        return line.substring("ready ".length());
    }

    private static void go(List<Process> instances) throws IOException {
        for (Process instance : instances) {
            OutputStream in = instance.getOutputStream();
            in.write('\n');
            in.flush();
        }
    }

}
