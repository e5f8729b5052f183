package dev.ratelimit.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus' own binaries ({@code prometheus}, {@code promtool}) from the {@code PATH}: Debian's {@code prometheus}
 * package, which {@code .ci/run} installs where it is missing. Where the repository keeps the dashboard and the rules
 * (docs/operations).
 */
final class PrometheusTools {

    /** docs/operations, from this module's folder (where Maven runs its tests). */
    static final Path OPERATIONS = Path.of("..", "..", "docs", "operations").toAbsolutePath().normalize();
    static final Path ALERTS = OPERATIONS.resolve("alerts.yml");
    static final Path ALERTS_TEST = OPERATIONS.resolve("alerts-test.yml");
    static final Path DASHBOARD = OPERATIONS.resolve("grafana-dashboard.json");

    private PrometheusTools() {
    }

    /** The binary's path; an assertion error saying how to get it when it is not on the {@code PATH}. */
    static Path binary(String name) {
        for (String folder : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(folder, name);
            if (!folder.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(name + " is not on the PATH (" + System.getenv("PATH") + "): install Debian's "
                + "prometheus package (apt-get install prometheus), as .ci/run does");
    }

    /** Runs a command to its end (at most 60 s); its exit status and its output (standard output and error). */
    static Result run(List<String> command, Path folder) {
        try {
            Path output = Files.createTempFile("promtool", ".out");
            try {
                Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true)
                        .redirectOutput(output.toFile()).start();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError(command + " still runs after 60 s");
                }
                return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static List<String> command(String binary, String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(binary(binary).toString());
        command.addAll(List.of(arguments));
        return command;
    }

    record Result(int exitStatus, String output) {
    }
}
