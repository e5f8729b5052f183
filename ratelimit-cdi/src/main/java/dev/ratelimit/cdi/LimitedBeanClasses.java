package dev.ratelimit.cdi;

import java.util.Set;

/**
 * The bean classes that declare {@code @RateLimit} (on the class or on a method), when an integration knows them
 * before the application starts: ratelimit-quarkus reads them from the Jandex index at build time. The library's
 * start-up then inspects those classes only, instead of reflecting on every bean of the application. Optional: a
 * bean of this type, when there is one.
 */
public interface LimitedBeanClasses {

    /** Their fully qualified names. */
    Set<String> names();
}
