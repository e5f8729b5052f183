package dev.ratelimit.it;

import dev.ratelimit.examples.todos.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The example in a JVM of its own ({@code java -cp <this class path> Main}, as {@code java -jar todos.jar} runs it), on
 * a port the system chooses ({@code PORT=0}), read back from the one line it prints once it listens: no other process
 * can take the port between a choice and a bind. Its output (standard output and error together) is read by a thread
 * of its own, so that every wait here has a deadline; a start that fails stops the process.
 */
final class ExampleProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("^todos listening on (http://\\S+/)$");
    /** Generous for a JVM starting Weld and Jersey on two busy cores. */
    static final Duration START = Duration.ofSeconds(120);

    private final Process process;
    private final List<String> output = new ArrayList<>();
    private final CompletableFuture<URI> listening = new CompletableFuture<>();

    private ExampleProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(this::read, "example-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the example with these JVM options ({@code -Dkey=value}) and environment ({@code PORT} 0 unless it says),
     * without waiting for it.
     */
    static ExampleProcess launch(List<String> jvmOptions, Map<String, String> environment) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PORT", "0"); // unless the test gives one
        builder.environment().putAll(environment);
        try {
            return new ExampleProcess(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
    }

    /** Starts the example and waits until it listens; a start that fails or takes too long is stopped, and fails. */
    static ExampleProcess start(List<String> jvmOptions, Map<String, String> environment) {
        ExampleProcess example = launch(jvmOptions, environment);
        try {
            example.awaitListening(START);
            return example;
        } catch (RuntimeException | Error e) {
            example.close();
            throw e;
        }
    }

    /** Waits for the line saying where it listens; returns its base URI ({@code http://127.0.0.1:PORT/}). */
    URI awaitListening(Duration timeout) {
        try {
            return listening.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the example did not say where it listens within " + timeout.toSeconds()
                    + " s; its output:\n" + output());
        } catch (ExecutionException e) {
            throw new AssertionError("the example " + e.getCause().getMessage() + "; its output:\n" + output());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Where it listens, once it said so. */
    URI base() {
        return awaitListening(Duration.ZERO);
    }

    /** Waits until it exits on its own; its exit status, or an assertion error when it still runs at the deadline. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the example still runs after " + timeout.toSeconds() + " s; its output:\n"
                    + output());
        }
        return process.exitValue();
    }

    /** Everything it has written so far. */
    String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                synchronized (output) {
                    output.add(line);
                }
                Matcher found = LISTENING.matcher(line);
                if (found.matches()) {
                    listening.complete(URI.create(found.group(1)));
                }
            }
        } catch (IOException e) {
            // the process is gone: said below
        }
        listening.completeExceptionally(new IllegalStateException("ended its output before it said where it listens"));
    }

    /** Stops it: TERM, then KILL after 10 s. Idempotent. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
