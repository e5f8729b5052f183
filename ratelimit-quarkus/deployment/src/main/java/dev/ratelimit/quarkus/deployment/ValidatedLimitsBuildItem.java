package dev.ratelimit.quarkus.deployment;

import io.quarkus.builder.item.EmptyBuildItem;

/**
 * Every limit of the application passed the build's checks, the resource methods' included (made once Quarkus REST has
 * deployed its endpoints). The steps that record the limits for run-time init consume it ({@code @Consume}), so they
 * follow the checks, and the checks run. Carries nothing.
 *
 * <p>Not API: public for the extension's Dev UI package ({@code devui}) only.
 */
public final class ValidatedLimitsBuildItem extends EmptyBuildItem {
}
