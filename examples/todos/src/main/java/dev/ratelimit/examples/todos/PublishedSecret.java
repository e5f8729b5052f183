package dev.ratelimit.examples.todos;

import java.lang.System.Logger.Level;
import org.eclipse.microprofile.config.Config;

/**
 * The example's {@code ratelimit.key-secret} is published (in its {@code microprofile-config.properties} and in
 * docs/login-protection.md), so that it runs as it is: anyone who has read it can compute the digest of an account
 * name and find that account's count. At start-up, a server that still uses it says so, once, with how to set one's
 * own (docs/login-protection.md, "Counting by an argument").
 */
final class PublishedSecret {

    /** The value the example ships with: examples/todos-app's microprofile-config.properties. */
    static final String EXAMPLE_VALUE = "example-only-not-a-secret-0f4c2a";
    static final String KEY = "ratelimit.key-secret";

    private static final System.Logger LOG = System.getLogger(PublishedSecret.class.getName());

    private PublishedSecret() {
    }

    /** Logs a warning when {@code config}'s {@value #KEY} is {@link #EXAMPLE_VALUE}; true when it did. */
    static boolean warnIfInUse(Config config) {
        boolean published = config.getOptionalValue(KEY, String.class).map(String::strip)
                .filter(EXAMPLE_VALUE::equals).isPresent();
        if (published) {
            // the value itself is not repeated: a log is no place for a secret, even a published one
            LOG.log(Level.WARNING, "todos: " + KEY + " is the example's published value (examples/todos-app's "
                    + "microprofile-config.properties): anyone who read it can compute the digests of the accounts that "
                    + "\"login-account\" counts. Set a secret of your own, at least 16 characters and the same on every "
                    + "instance: -D" + KEY + "=<secret> or the environment variable RATELIMIT_KEY_SECRET");
        }
        return published;
    }
}
