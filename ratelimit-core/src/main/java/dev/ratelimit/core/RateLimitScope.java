package dev.ratelimit.core;

/** Where a limit decides in the Jakarta REST request filter chain. */
public enum RateLimitScope {
    /**
     * After authentication, before authorization
     * ({@code Priorities.AUTHENTICATION < priority < Priorities.AUTHORIZATION}). The default.
     */
    TRANSPORT,
    /**
     * After authorization ({@code Priorities.AUTHORIZATION < priority < Priorities.HEADER_DECORATOR}):
     * requests refused by authorization never reach the limit.
     */
    PRINCIPAL
}
