package dev.ratelimit.tck.support;

/** One member of {@code RateLimit}: {@code "<name>";r=<remaining>;t=<seconds until reset>}. */
public record LimitItem(String name, long remaining, long resetSeconds) {
}
