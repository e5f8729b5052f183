package dev.ratelimit.cdi;

/** Where a limit was declared. Limits of one request are ordered by level, then declaration order. */
public enum Level {
    /** {@code ratelimit.global.*} configuration: every resource method. */
    GLOBAL,
    /** On the {@code Application} subclass: resource methods without a class or method limit. */
    MODULE,
    /** On the resource or bean class. */
    CLASS,
    /** On the method. */
    METHOD
}
