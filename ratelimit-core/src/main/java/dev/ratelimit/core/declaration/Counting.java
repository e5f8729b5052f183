package dev.ratelimit.core.declaration;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.config.LimitValues;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.Locale;

/**
 * Whose count a limit spends from and what it counts, once configuration applies: {@code per}, and whether only
 * failures count ({@code failuresOnly}, with the statuses that are failures). Limits that share a name share a count,
 * so they must agree on all of it. Immutable.
 *
 * @param per          whose count
 * @param failuresOnly true when a call that succeeds gives its permit back
 * @param statuses     the HTTP statuses that are failures; null unless {@code failuresOnly}
 */
public record Counting(RateLimitPer per, boolean failuresOnly, FailureStatuses statuses) {

    /**
     * What {@code declared} counts under {@code settings}: {@code ratelimit.limits.<name>.per}, {@code .failures-only}
     * and {@code .failure-statuses} win over the declaration.
     *
     * @throws IllegalArgumentException when the declared failure statuses do not read (a problem the resolver reports)
     */
    public static Counting of(RateLimitSettings settings, LimitDeclaration declared) {
        LimitValues configured = settings.limit(declared.name());
        RateLimitPer per = configured.per() != null ? configured.per() : declared.per();
        boolean failuresOnly = configured.failuresOnly() != null ? configured.failuresOnly() : declared.failuresOnly();
        FailureStatuses statuses = !failuresOnly ? null : configured.failureStatuses() != null
                ? configured.failureStatuses() : FailureStatuses.parse(declared.failureStatuses());
        return new Counting(per, failuresOnly, statuses);
    }

    /** {@code per caller}, {@code per address, failures only (401,403)}: how messages say it. */
    public String describe() {
        return "per " + per.name().toLowerCase(Locale.ROOT) + (failuresOnly ? ", failures only (" + statuses + ")" : "");
    }
}
