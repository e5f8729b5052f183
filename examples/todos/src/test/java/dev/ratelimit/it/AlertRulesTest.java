package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerting rules of docs/operations/alerts.yml, checked by Prometheus' own {@code promtool}: they are valid
 * ({@code check rules}), and each alert fires and stays quiet when its unit tests in alerts-test.yml say
 * ({@code test rules}); every alert has such a test.
 */
class AlertRulesTest {

    private static final Pattern ALERT = Pattern.compile("^\\s*- alert: (\\S+)\\s*$", Pattern.MULTILINE);
    private static final Pattern TESTED = Pattern.compile("^\\s*alertname: (\\S+)\\s*$", Pattern.MULTILINE);

    @Test
    void promtoolFindsTheRulesValid() {
        PrometheusTools.Result checked = PrometheusTools.run(
                PrometheusTools.command("promtool", "check", "rules", PrometheusTools.ALERTS.toString()),
                PrometheusTools.OPERATIONS);

        assertThat(checked.exitStatus()).as("promtool check rules:%n%s", checked.output()).isZero();
        assertThat(checked.output()).contains("SUCCESS");
    }

    @Test
    void everyAlertPassesItsPromtoolUnitTests() {
        PrometheusTools.Result tested = PrometheusTools.run(
                PrometheusTools.command("promtool", "test", "rules", PrometheusTools.ALERTS_TEST.toString()),
                PrometheusTools.OPERATIONS);

        assertThat(tested.exitStatus()).as("promtool test rules:%n%s", tested.output()).isZero();
        assertThat(tested.output()).contains("SUCCESS");
    }

    @Test
    void everyAlertHasAUnitTest() throws IOException {
        Set<String> alerts = all(ALERT, PrometheusTools.ALERTS);
        Set<String> tested = all(TESTED, PrometheusTools.ALERTS_TEST);

        assertThat(alerts).as("alerts in %s", PrometheusTools.ALERTS).isNotEmpty();
        assertThat(tested).as("alerts tested in %s", PrometheusTools.ALERTS_TEST).isEqualTo(alerts);
    }

    /** A broken expectation fails: the unit tests are read and compared, not skipped. */
    @Test
    void aWrongExpectationFailsPromtool(@TempDir Path folder) throws IOException {
        Files.copy(PrometheusTools.ALERTS, folder.resolve("alerts.yml"));
        String tests = Files.readString(PrometheusTools.ALERTS_TEST, StandardCharsets.UTF_8)
                .replace("{severity: critical, ratelimit_store: redis}", "{severity: critical, ratelimit_store: jcache}");
        Files.writeString(folder.resolve("alerts-test.yml"), tests, StandardCharsets.UTF_8);

        PrometheusTools.Result tested = PrometheusTools.run(
                PrometheusTools.command("promtool", "test", "rules", "alerts-test.yml"), folder);

        assertThat(tested.exitStatus()).as(tested.output()).isNotZero();
        assertThat(tested.output()).contains("RateLimitStoreFailing");
    }

    private static Set<String> all(Pattern pattern, Path file) throws IOException {
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(Files.readString(file, StandardCharsets.UTF_8));
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }
}
