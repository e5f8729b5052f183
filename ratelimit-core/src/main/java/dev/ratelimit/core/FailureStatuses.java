package dev.ratelimit.core;

import java.util.BitSet;

/**
 * The HTTP statuses that count as a failure for a limit that counts only failures ({@code failuresOnly}): codes and
 * ranges, comma-separated, such as {@code 400-599} (the default: a client error or a server error keeps the permit)
 * or {@code 401,403} (only refused credentials keep it). A final status below 400 is always a success. Immutable.
 */
public final class FailureStatuses {

    /** The default: every client and server error. */
    public static final String DEFAULT_TEXT = "400-599";

    /** Every client and server error. */
    public static final FailureStatuses DEFAULT = parse(DEFAULT_TEXT);

    private static final int LOWEST = 400;
    private static final int HIGHEST = 599;

    private final BitSet failures;
    private final String text;

    private FailureStatuses(BitSet failures, String text) {
        this.failures = failures;
        this.text = text;
    }

    /**
     * Reads codes and ranges, comma-separated ({@code 400-599}, {@code 401,403}, {@code 400-499,503}), each from 400
     * to 599.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code text}
     */
    public static FailureStatuses parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("must be HTTP statuses from " + LOWEST + " to " + HIGHEST
                    + ", codes and ranges comma-separated (400-599, 401,403), was \"" + text + "\"");
        }
        BitSet failures = new BitSet(HIGHEST + 1);
        StringBuilder canonical = new StringBuilder();
        for (String part : text.split(",", -1)) {
            String item = part.strip();
            int dash = item.indexOf('-');
            int from = status(dash < 0 ? item : item.substring(0, dash), text);
            int to = dash < 0 ? from : status(item.substring(dash + 1), text);
            if (to < from) {
                throw new IllegalArgumentException("must be HTTP statuses from " + LOWEST + " to " + HIGHEST
                        + ", each range low-high (" + item + " is not), was \"" + text + "\"");
            }
            failures.set(from, to + 1);
            canonical.append(canonical.length() == 0 ? "" : ",").append(from == to ? Integer.toString(from) : from + "-" + to);
        }
        return new FailureStatuses(failures, canonical.toString());
    }

    private static int status(String code, String text) {
        try {
            int status = Integer.parseInt(code.strip());
            if (status >= LOWEST && status <= HIGHEST) {
                return status;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("must be HTTP statuses from " + LOWEST + " to " + HIGHEST
                + ", codes and ranges comma-separated (400-599, 401,403; \"" + code.strip() + "\" is not one), was \""
                + text + "\"");
    }

    /** Null when {@code text} reads; else what is wrong with it. */
    public static String error(String text) {
        try {
            parse(text);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** True when a request answered with {@code status} failed: it keeps its permit. */
    public boolean failure(int status) {
        return status >= LOWEST && status <= HIGHEST && failures.get(status);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FailureStatuses other && failures.equals(other.failures);
    }

    @Override
    public int hashCode() {
        return failures.hashCode();
    }

    /** The statuses as codes and ranges: {@code 400-599}, {@code 401,403}. */
    @Override
    public String toString() {
        return text;
    }
}
