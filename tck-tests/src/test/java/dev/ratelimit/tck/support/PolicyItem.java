package dev.ratelimit.tck.support;

/** One member of {@code RateLimit-Policy}: {@code "<name>";q=<permitLimit>;w=<windowSeconds>}. */
public record PolicyItem(String name, long quota, long windowSeconds) {
}
