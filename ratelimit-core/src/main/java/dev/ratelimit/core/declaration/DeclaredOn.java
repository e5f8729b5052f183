package dev.ratelimit.core.declaration;

/**
 * Where a limit was declared. A method's limits are ordered by it (global, module, class, method), then by
 * declaration order.
 */
public enum DeclaredOn {
    /** The configuration's global limit ({@code ratelimit.global.*}): every resource method, besides its own limits. */
    GLOBAL,
    /** The {@code Application} subclass: the resource methods whose class and method declare no limit. */
    MODULE,
    /** The resource or bean class (or the client interface): every method of it. */
    CLASS,
    /** The method itself. */
    METHOD
}
