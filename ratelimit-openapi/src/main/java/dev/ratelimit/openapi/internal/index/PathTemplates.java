package dev.ratelimit.openapi.internal.index;

import java.util.ArrayList;
import java.util.List;

/**
 * Path templates in the one form that both sides of the index agree on: what the annotation
 * processor reads from {@code @ApplicationPath} and {@code @Path}, and what an OpenAPI generator
 * writes in the document. A template expression keeps only its name ({@code {id: [0-9]{1,9}}} and
 * {@code { id }} are both {@code {id}}: generators drop the regex), empty segments and a trailing
 * slash are dropped, and the path starts with one slash ({@code "/"} alone for the root).
 */
public final class PathTemplates {

    private PathTemplates() {
    }

    /** The paths joined as JAX-RS joins them (application, class, method), normalized. */
    public static String join(String... parts) {
        StringBuilder joined = new StringBuilder();
        for (String part : parts) {
            if (part != null && !part.isEmpty()) {
                joined.append('/').append(part);
            }
        }
        return normalize(joined.toString());
    }

    /** The normalized form of a path template; see the class comment. */
    public static String normalize(String path) {
        String reduced = reduceTemplates(path == null ? "" : path);
        StringBuilder normalized = new StringBuilder(reduced.length() + 1);
        for (String segment : reduced.split("/")) {
            if (!segment.isEmpty()) {
                normalized.append('/').append(segment);
            }
        }
        return normalized.length() == 0 ? "/" : normalized.toString();
    }

    /** The segments of a normalized path; none for {@code "/"}. */
    public static List<String> segments(String normalized) {
        List<String> segments = new ArrayList<>();
        for (String segment : normalized.split("/")) {
            if (!segment.isEmpty()) {
                segments.add(segment);
            }
        }
        return segments;
    }

    /** {@code {name: regex}} to {@code {name}}; a regex may hold braces of its own ({@code [0-9]{2}}). */
    private static String reduceTemplates(String path) {
        StringBuilder out = new StringBuilder(path.length());
        int i = 0;
        while (i < path.length()) {
            char c = path.charAt(i);
            int close = c == '{' ? matchingBrace(path, i) : -1;
            if (close < 0) {
                out.append(c);
                i++;
                continue;
            }
            String expression = path.substring(i + 1, close);
            int colon = expression.indexOf(':');
            String name = (colon < 0 ? expression : expression.substring(0, colon)).trim();
            out.append('{').append(name).append('}');
            i = close + 1;
        }
        return out.toString();
    }

    private static int matchingBrace(String path, int open) {
        int depth = 0;
        for (int i = open; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }
}
