package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two application instances, each a JVM of its own with its own store and Lettuce client, on one Redis:
 * together they admit exactly the permit limit, for every algorithm (each alone would admit it: with the
 * in-process store, two instances with a limit of 100 admit 200).
 */
class TwoInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Test
    void twoInstancesOnOneRedisAdmitExactlyThePermitLimitInTotalWhateverTheAlgorithm() throws Exception {
        int permitLimit = 100;
        int requestsEach = 150;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> instances = new ArrayList<>();
        try {
            List<BufferedReader> outputs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Process instance = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-cp",
                        System.getProperty("java.class.path"), CountingInstance.class.getName(), REDIS.uri(), "two-jvms",
                        Integer.toString(permitLimit), Integer.toString(requestsEach))
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                instances.add(instance);
                outputs.add(new BufferedReader(new InputStreamReader(instance.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (BufferedReader output : outputs) {
                assertThat(output.readLine()).isEqualTo("ready");
            }
            for (Process instance : instances) { // both go at once
                OutputStream in = instance.getOutputStream();
                in.write('\n');
                in.flush();
            }
            int algorithms = RateLimitAlgorithm.values().length;
            int[] total = new int[algorithms];
            List<String> lines = new ArrayList<>();
            for (BufferedReader output : outputs) {
                String line = output.readLine();
                lines.add(line);
                assertThat(line).startsWith("admitted=");
                String[] admitted = line.substring("admitted=".length()).split(",");
                assertThat(admitted).hasSize(algorithms);
                for (int k = 0; k < algorithms; k++) {
                    total[k] += Integer.parseInt(admitted[k]);
                }
            }
            for (int k = 0; k < algorithms; k++) {
                assertThat(total[k]).as("admitted by the two instances with %s: %s", RateLimitAlgorithm.values()[k], lines)
                        .isEqualTo(permitLimit);
            }
            for (Process instance : instances) {
                assertThat(instance.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(instance.exitValue()).isZero();
            }
        } finally {
            instances.forEach(Process::destroyForcibly);
        }
    }
}
