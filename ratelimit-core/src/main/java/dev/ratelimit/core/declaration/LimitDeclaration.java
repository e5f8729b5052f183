package dev.ratelimit.core.declaration;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one declaration of a limit says: every member of an {@code @RateLimit}, its default applied where the
 * declaration gives none, and where it was found. The global limit of the configuration is one too
 * ({@link #global}). Values are kept as read, not validated: {@link LimitResolver} reports what is wrong with them,
 * naming {@link #place} and the value. Immutable.
 *
 * <p>A reader makes one with a {@link Builder}, handing over each member by its name ({@link Builder#member}): the
 * members and their defaults are known here only, and {@link #members()} gives them back by name for a
 * serialisation.
 *
 * @param name          the count it spends from
 * @param permitLimit   permits per window
 * @param windowSeconds the window, in seconds
 * @param scope         where in the Jakarta REST filter chain it decides
 * @param algorithm     how spent permits return
 * @param cost          permits one call spends
 * @param maxWaitMillis how long a call over the limit may wait for its permits, in milliseconds; 0 refuses at once
 * @param per           whose count it spends from
 * @param failuresOnly  true when a call that succeeds gives its permit back: the count holds failures (and calls in
 *                      flight) only
 * @param failureStatuses the HTTP statuses that are failures for {@code failuresOnly}, as written: codes and ranges,
 *                      {@code 400-599} by default ({@link FailureStatuses})
 * @param declaredOn    where it was declared: global, module, class or method
 * @param place         the element it was found on, as messages name it: {@code TodoResource.create(NewTodo, UriInfo)}
 *                      for a method, {@code TodoResource} for a class, {@code TodosApplication} for the module,
 *                      {@code ratelimit.global.*} for the global limit
 * @param unreadable    what the reader could not translate (a member this version does not know, a value of the
 *                      wrong type), each naming the member and the value; such a member keeps its default
 */
public record LimitDeclaration(String name, int permitLimit, int windowSeconds, RateLimitScope scope,
                               RateLimitAlgorithm algorithm, int cost, long maxWaitMillis, RateLimitPer per,
                               boolean failuresOnly, String failureStatuses, DeclaredOn declaredOn, String place,
                               List<String> unreadable) {

    public static final String NAME = "name";
    public static final String PERMIT_LIMIT = "permitLimit";
    public static final String WINDOW_SECONDS = "windowSeconds";
    public static final String SCOPE = "scope";
    public static final String ALGORITHM = "algorithm";
    public static final String COST = "cost";
    public static final String MAX_WAIT_MILLIS = "maxWaitMillis";
    public static final String PER = "per";
    public static final String FAILURES_ONLY = "failuresOnly";
    public static final String FAILURE_STATUSES = "failureStatuses";

    /** The members of {@code @RateLimit} this version reads, in the order {@link #members()} gives them. */
    public static final List<String> MEMBERS = List.of(NAME, PERMIT_LIMIT, WINDOW_SECONDS, SCOPE, ALGORITHM, COST,
            MAX_WAIT_MILLIS, PER, FAILURES_ONLY, FAILURE_STATUSES);

    /** The place of the global limit. */
    public static final String GLOBAL_PLACE = "ratelimit.global.*";

    public LimitDeclaration {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(per, "per");
        Objects.requireNonNull(failureStatuses, "failureStatuses");
        Objects.requireNonNull(declaredOn, "declaredOn");
        Objects.requireNonNull(place, "place");
        unreadable = List.copyOf(unreadable);
    }

    /** A declaration found on {@code place}: every member at its default until the reader hands it over. */
    public static Builder builder(DeclaredOn declaredOn, String place) {
        return new Builder(declaredOn, place);
    }

    /** The global limit of the configuration ({@code ratelimit.global.*}): cost 1, refuses at once, per caller. */
    public static LimitDeclaration global(RateLimitPolicy policy, RateLimitScope scope) {
        return builder(DeclaredOn.GLOBAL, GLOBAL_PLACE).policy(policy).scope(scope).build();
    }

    /** The global limit of {@code settings}, or null when they set none. */
    public static LimitDeclaration global(RateLimitSettings settings) {
        return settings.global() == null ? null : global(settings.global(), settings.globalScope());
    }

    /**
     * Its size and algorithm as a policy.
     *
     * @throws IllegalArgumentException naming the member and the value when one is out of range (a declaration that
     *                                  {@link LimitResolver} found no problem with never is)
     */
    public RateLimitPolicy policy() {
        return new RateLimitPolicy(name, permitLimit, windowSeconds, algorithm);
    }

    /**
     * Every member by name ({@link #MEMBERS}), in that order: what a serialisation writes and {@link Builder#member}
     * reads.
     */
    public Map<String, Object> members() {
        Map<String, Object> members = new LinkedHashMap<>();
        members.put(NAME, name);
        members.put(PERMIT_LIMIT, permitLimit);
        members.put(WINDOW_SECONDS, windowSeconds);
        members.put(SCOPE, scope);
        members.put(ALGORITHM, algorithm);
        members.put(COST, cost);
        members.put(MAX_WAIT_MILLIS, maxWaitMillis);
        members.put(PER, per);
        members.put(FAILURES_ONLY, failuresOnly);
        members.put(FAILURE_STATUSES, failureStatuses);
        return members;
    }

    /**
     * {@code "burst" 5/1s}, then what is not the default among the algorithm, cost, scope, wait, {@code per} and
     * what counts: {@code "reports" 10/60s STRICT_WINDOW cost 4 PRINCIPAL},
     * {@code "login-address" 5/900s STRICT_WINDOW per ADDRESS failures only (400-599)}.
     */
    public String describe() {
        StringBuilder text = new StringBuilder().append('"').append(name).append("\" ").append(permitLimit).append('/')
                .append(windowSeconds).append('s');
        if (algorithm != RateLimitAlgorithm.SLIDING_WINDOW) {
            text.append(' ').append(algorithm);
        }
        if (cost != 1) {
            text.append(" cost ").append(cost);
        }
        if (scope != RateLimitScope.TRANSPORT) {
            text.append(' ').append(scope);
        }
        if (maxWaitMillis != 0) {
            text.append(" wait ").append(maxWaitMillis).append(" ms");
        }
        if (per != RateLimitPer.CALLER) {
            text.append(" per ").append(per);
        }
        if (failuresOnly) {
            text.append(" failures only (").append(failureStatuses.strip()).append(')');
        }
        return text.toString();
    }

    /**
     * Makes a declaration from the members a reader finds, each by name. Starts from the defaults of
     * {@code @RateLimit}: a reader may hand over only the members the declaration gives. Not thread-safe; one per
     * declaration.
     */
    public static final class Builder {

        private final DeclaredOn declaredOn;
        private final String place;
        private String name = "default";
        private int permitLimit = 100;
        private int windowSeconds = 60;
        private RateLimitScope scope = RateLimitScope.TRANSPORT;
        private RateLimitAlgorithm algorithm = RateLimitAlgorithm.SLIDING_WINDOW;
        private int cost = 1;
        private long maxWaitMillis;
        private RateLimitPer per = RateLimitPer.CALLER;
        private boolean failuresOnly;
        private String failureStatuses = FailureStatuses.DEFAULT_TEXT;
        private final List<String> unreadable = new ArrayList<>();

        private Builder(DeclaredOn declaredOn, String place) {
            this.declaredOn = Objects.requireNonNull(declaredOn, "declaredOn");
            this.place = Objects.requireNonNull(place, "place");
        }

        /**
         * One member, by its name in {@code @RateLimit}, as the reader found it: a number or its text for a number,
         * text for the name and the failure statuses, a boolean or its text for {@code failuresOnly}, an enum constant
         * or its name for the scope, algorithm and {@code per}. A member this
         * version does not know, or a value it cannot read as the member's type, is kept in
         * {@link LimitDeclaration#unreadable} (naming the member and the value), and the member keeps its default.
         */
        public Builder member(String member, Object value) {
            try {
                switch (member) {
                    case NAME -> name = text(value);
                    case PERMIT_LIMIT -> permitLimit = intValue(value);
                    case WINDOW_SECONDS -> windowSeconds = intValue(value);
                    case SCOPE -> scope = constant(RateLimitScope.class, value);
                    case ALGORITHM -> algorithm = constant(RateLimitAlgorithm.class, value);
                    case COST -> cost = intValue(value);
                    case MAX_WAIT_MILLIS -> maxWaitMillis = longValue(value);
                    case PER -> per = constant(RateLimitPer.class, value);
                    case FAILURES_ONLY -> failuresOnly = bool(value);
                    case FAILURE_STATUSES -> failureStatuses = text(value);
                    default -> unreadable.add("the member " + member + " (" + value + ") is not one this version of "
                            + "ratelimit reads " + MEMBERS);
                }
            } catch (IllegalArgumentException e) {
                unreadable.add(member + " " + e.getMessage());
            }
            return this;
        }

        public Builder name(String name) {
            return member(NAME, name);
        }

        public Builder permitLimit(int permitLimit) {
            return member(PERMIT_LIMIT, permitLimit);
        }

        public Builder windowSeconds(int windowSeconds) {
            return member(WINDOW_SECONDS, windowSeconds);
        }

        public Builder scope(RateLimitScope scope) {
            return member(SCOPE, scope);
        }

        public Builder algorithm(RateLimitAlgorithm algorithm) {
            return member(ALGORITHM, algorithm);
        }

        public Builder cost(int cost) {
            return member(COST, cost);
        }

        public Builder maxWaitMillis(long maxWaitMillis) {
            return member(MAX_WAIT_MILLIS, maxWaitMillis);
        }

        public Builder per(RateLimitPer per) {
            return member(PER, per);
        }

        public Builder failuresOnly(boolean failuresOnly) {
            return member(FAILURES_ONLY, failuresOnly);
        }

        public Builder failureStatuses(String failureStatuses) {
            return member(FAILURE_STATUSES, failureStatuses);
        }

        /** The name, permit limit, window and algorithm of {@code policy}. */
        public Builder policy(RateLimitPolicy policy) {
            return name(policy.name()).permitLimit(policy.permitLimit()).windowSeconds(policy.windowSeconds())
                    .algorithm(policy.algorithm());
        }

        public LimitDeclaration build() {
            return new LimitDeclaration(name, permitLimit, windowSeconds, scope, algorithm, cost, maxWaitMillis, per,
                    failuresOnly, failureStatuses, declaredOn, place, unreadable);
        }

        private static String text(Object value) {
            if (value instanceof CharSequence text) {
                return text.toString();
            }
            throw new IllegalArgumentException("must be text, was " + value);
        }

        private static boolean bool(Object value) {
            if (value instanceof Boolean b) {
                return b;
            }
            if (value instanceof CharSequence text && (text.toString().strip().equalsIgnoreCase("true")
                    || text.toString().strip().equalsIgnoreCase("false"))) {
                return Boolean.parseBoolean(text.toString().strip());
            }
            throw new IllegalArgumentException("must be true or false, was " + value);
        }

        private static int intValue(Object value) {
            long number = longValue(value);
            if (number < Integer.MIN_VALUE || number > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("must be an int, was " + value);
            }
            return (int) number;
        }

        private static long longValue(Object value) {
            if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
                return ((Number) value).longValue();
            }
            if (value instanceof CharSequence text) {
                try {
                    return Long.parseLong(text.toString().strip());
                } catch (NumberFormatException e) {
                    // below
                }
            }
            throw new IllegalArgumentException("must be a whole number, was " + value);
        }

        /** An enum constant, or its name (as text, or any object whose text is the name: a compiler's element). */
        private static <E extends Enum<E>> E constant(Class<E> type, Object value) {
            if (type.isInstance(value)) {
                return type.cast(value);
            }
            String text = value instanceof Enum<?> e ? e.name() : String.valueOf(value);
            for (E constant : type.getEnumConstants()) {
                if (constant.name().equals(text)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException(text + " is not one this version of ratelimit knows "
                    + Arrays.toString(type.getEnumConstants()));
        }
    }
}
