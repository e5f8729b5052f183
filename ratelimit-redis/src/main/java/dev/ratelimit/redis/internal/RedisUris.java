package dev.ratelimit.redis.internal;

import io.lettuce.core.RedisURI;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsing Redis URIs, and writing them without their passwords. */
public final class RedisUris {

    private static final Pattern USER_INFO = Pattern.compile("//([^/@]*)@");

    private RedisUris() {
    }

    /**
     * Parses {@code redis://[password@]host[:port][/database]}, {@code rediss://...} (TLS) or
     * {@code redis-sentinel://host:port[,host:port]#master}.
     *
     * @throws IllegalArgumentException when it is not a Redis URI; the message never holds the password
     */
    public static RedisURI parse(String uri) {
        if (uri == null || uri.indexOf(':') < 0) {
            throw new IllegalArgumentException("not a URI: " + (uri == null ? null : redact(uri)));
        }
        String scheme = uri.substring(0, uri.indexOf(':')).toLowerCase(Locale.ROOT);
        if (scheme.equals("redis") || scheme.equals("rediss") || scheme.startsWith("redis+")) {
            // Lettuce takes "host:port" with a malformed port for a host name; java.net.URI does not
            try {
                if (new java.net.URI(uri).getHost() == null) {
                    throw new IllegalArgumentException("no host[:port] in " + redact(uri));
                }
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("not a URI: " + redact(uri));
            }
        }
        try {
            return RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(hideUserInfo(uri, String.valueOf(e.getMessage())));
        }
    }

    /** A URI without its password, fit for a log or an error message. */
    public static String redact(String uri) {
        return uri.replaceFirst("//[^/@]*@", "//***@");
    }

    /** {@code text} without the user info (password) of {@code uri}. */
    public static String hideUserInfo(String uri, String text) {
        Matcher userInfo = USER_INFO.matcher(uri);
        return userInfo.find() && !userInfo.group(1).isEmpty() ? text.replace(userInfo.group(1), "***") : text;
    }
}
