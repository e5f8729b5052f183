/**
 * Live values and the admin API: the configuration read again while the application runs and put in force ({@link
 * dev.ratelimit.core.live.LiveValues}), and the effective limits, one caller's count, a reset and the most refused
 * ({@link dev.ratelimit.core.live.LimitAdmin}).
 *
 * <p>Uses {@code dev.ratelimit.core.binding} (what puts a configuration in force, what was bound); the request path
 * ({@code engine}) hands out its admin API, and is never used from here. Not an API: its public types are public for
 * the library's adapters and may change with any release.
 */
package dev.ratelimit.core.live;
