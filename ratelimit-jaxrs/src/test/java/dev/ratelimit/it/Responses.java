package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

/** Assertions on the rate-limit headers of a response (names compared without regard to case). */
final class Responses {

    static final List<String> RATE_LIMIT_HEADERS =
            List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "RateLimit", "Retry-After");

    private Responses() {
    }

    static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    static long longHeader(HttpResponse<?> response, String name) {
        String value = header(response, name);
        assertThat(value).as(name).isNotNull();
        return Long.parseLong(value);
    }

    static void assertNoRateLimitHeaders(HttpResponse<?> response) {
        for (String name : RATE_LIMIT_HEADERS) {
            assertThat(response.headers().firstValue(name)).as(name + " on a " + response.statusCode()).isEmpty();
        }
    }

    /** A 429 of one refusing limit named {@code name}, sized {@code permitLimit}/{@code windowSeconds}, and its headers. */
    static void assertRefusedBy(HttpResponse<?> response, String name, int permitLimit, int windowSeconds) {
        assertThat(response.statusCode()).isEqualTo(429);
        long retryAfter = longHeader(response, "Retry-After");
        assertThat(retryAfter).isBetween(1L, (long) windowSeconds);
        assertThat(header(response, "RateLimit-Limit")).isEqualTo(String.valueOf(permitLimit));
        assertThat(header(response, "RateLimit-Remaining")).isEqualTo("0");
        assertThat(header(response, "RateLimit-Reset")).isEqualTo(String.valueOf(retryAfter));
        assertThat(header(response, "RateLimit-Policy"))
                .endsWith("\"" + name + "\";q=" + permitLimit + ";w=" + windowSeconds);
        assertThat(header(response, "RateLimit")).endsWith("\"" + name + "\";r=0;t=" + retryAfter);
    }
}
