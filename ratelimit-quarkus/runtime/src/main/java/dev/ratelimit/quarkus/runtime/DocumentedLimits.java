package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the OpenAPI document built at build time says about the limits, in one line: each declared limit's effective
 * values and mode for callers in no plan and for each plan, as a configuration makes them. The build writes it with
 * the build's configuration, beside the declared limits ({@link #RESOURCE}); at start-up, the same line made with the
 * run-time configuration tells whether the document must be filtered again (run-time overrides).
 */
public final class DocumentedLimits {

    /** Written by the build: the line, then one declared limit per line ({@code name permitLimit windowSeconds algorithm}). */
    public static final String RESOURCE = "META-INF/ratelimit/quarkus-openapi-build.txt";

    private DocumentedLimits() {
    }

    /** The line for {@code declared} under {@code settings}. */
    public static String of(RateLimitSettings settings, List<RateLimitPolicy> declared) {
        StringBuilder line = new StringBuilder().append("enabled=").append(settings.enabled());
        if (!settings.enabled()) {
            return line.toString();
        }
        List<Plan> plans = new ArrayList<>();
        plans.add(null);
        plans.addAll(settings.plans());
        for (Plan plan : plans) {
            line.append(plan == null ? "; no plan:" : "; plan " + plan.name() + ":");
            for (RateLimitPolicy policy : declared) {
                Effective effective = settings.effective(policy, plan);
                line.append(' ').append(effective.policy()).append(' ').append(effective.mode());
            }
        }
        return line.toString();
    }

    /** The resource's text: the line, then the declared limits. */
    public static String write(String line, List<RateLimitPolicy> declared) {
        StringBuilder text = new StringBuilder(line).append('\n');
        for (RateLimitPolicy policy : declared) {
            text.append(policy.name()).append(' ').append(policy.permitLimit()).append(' ').append(policy.windowSeconds())
                    .append(' ').append(policy.algorithm()).append('\n');
        }
        return text.toString();
    }

    /** The build's line and declared limits, read back; null when the build wrote none. */
    static Written read(ClassLoader loader) {
        try (InputStream in = loader.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return null;
            }
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            List<RateLimitPolicy> declared = new ArrayList<>();
            for (String limit : lines.subList(1, lines.size())) {
                String[] parts = limit.split(" ");
                declared.add(new RateLimitPolicy(parts[0], Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
                        RateLimitAlgorithm.valueOf(parts[3])));
            }
            return new Written(lines.get(0), declared);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    record Written(String line, List<RateLimitPolicy> declared) {
    }
}
