package dev.ratelimit.core;

/**
 * How a count returns the permits spent from it. Every algorithm allows at most {@code permitLimit}
 * permits out at a time; they differ in when a spent permit comes back, and so in how many requests
 * the densest span of one window can hold.
 *
 * <table>
 *   <caption>The algorithms</caption>
 *   <tr><th>algorithm</th><th>a permit spent returns</th><th>most admitted in any span of
 *       {@code windowSeconds}</th><th>sustained rate of a client that retries at once</th></tr>
 *   <tr><td>{@link #SLIDING_WINDOW}</td><td>one window after the start of its step</td>
 *       <td>2N-1</td><td>N per window</td></tr>
 *   <tr><td>{@link #STRICT_WINDOW}</td><td>one window after the end of its step</td>
 *       <td>N</td><td>8/9 N per window</td></tr>
 *   <tr><td>{@link #TOKEN_BUCKET}</td><td>one every {@code windowSeconds / permitLimit}</td>
 *       <td>2N-1</td><td>N per window, evenly spaced</td></tr>
 * </table>
 * (N is {@code permitLimit}; a step is one eighth of the window, the first one starting when the count
 * is created.) Limits that share a name share a count, so they must share an algorithm.
 */
public enum RateLimitAlgorithm {

    /**
     * The default: the window moves in steps of one eighth of {@code windowSeconds}; a permit spent in a
     * step returns one window after the start of that step. A client that watches the answers can put
     * up to 2N-1 admitted requests into one window's span, across a step boundary.
     */
    SLIDING_WINDOW,

    /**
     * Like {@link #SLIDING_WINDOW}, but a permit spent in a step returns one window after the <em>end</em>
     * of that step: never more than N admitted requests in any span of {@code windowSeconds}, at the price
     * of a sustained rate of 8/9 N per window for a client that always retries at once.
     */
    STRICT_WINDOW,

    /**
     * A token bucket (GCRA): it holds at most N permits and gets one back every
     * {@code windowSeconds / permitLimit}. A full bucket serves a burst of N, then requests evenly spaced.
     * Its count is one timestamp.
     */
    TOKEN_BUCKET
}
