package dev.ratelimit.core.log;

/**
 * A value as the log may show it (docs/operating-limits.md, "What the log shows"): every control character escaped,
 * so that a value (a partition from a header, a limit name in an admin URL, a plan a resolver answered, a key in the
 * configuration) can never end the log line and write one of its own. {@code \n}, {@code \r} and {@code \t} are
 * written as those two characters; every other C0 or C1 control character, DEL, and the line and paragraph separators
 * (U+2028, U+2029) as {@code \}{@code uXXXX}; a backslash as two, so that an escape in the log always means an escaped
 * character. Other text is unchanged. Thread-safe, plain Java.
 */
public final class LogText {

    private LogText() {
    }

    /** {@code value}'s text ({@code String.valueOf}), escaped; {@code "null"} for null. */
    public static String of(Object value) {
        String text = String.valueOf(value);
        int first = firstToEscape(text);
        if (first < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (escaped(c)) {
                        out.append("\\u").append(String.format("%04X", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** {@code value} escaped and in double quotes: {@code "X-Api-Key:a\nb"}. */
    public static String quoted(Object value) {
        return "\"" + of(value) + "\"";
    }

    private static int firstToEscape(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' || escaped(c)) {
                return i;
            }
        }
        return -1;
    }

    /** C0, DEL, C1, and the Unicode line and paragraph separators. */
    private static boolean escaped(char c) {
        return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == '\u2028' || c == '\u2029';
    }
}
