package dev.ratelimit.core.declaration;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.declaration.MethodDeclarations.Kind;
import dev.ratelimit.core.declaration.ResolvedLimits.Problem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which limits cover a method, and what is wrong with them: the one place that decides it, for every runtime, the
 * annotation processor and the OpenAPI document. Pure: the same declarations always give the same answer, and it
 * reads nothing else.
 *
 * <p>A resource method is covered by the global limit, then the module's limits only where neither its class nor
 * itself declares one, then its class's, then its own, each in declaration order. A bean method is covered by its
 * class's and its own. What is wrong, each problem naming the place and the value (the message a deployment fails
 * with): a member a reader could not read, a value out of range ({@link RateLimitPolicy}), a cost outside
 * {@code 1 .. permitLimit}, a negative wait, a wait on a resource method (which refuses at once), one name used by two
 * limits covering the method, a limit that counts only failures and may wait, failure statuses that do not read; and
 * of the method's {@code @RateLimitKey} parameter (what a {@code per = ARGUMENT} limit counts by): an
 * {@code ARGUMENT} limit without one, two of them, one that no {@code ARGUMENT} limit uses, one of a type whose text is
 * not a key, an {@code ARGUMENT} limit that the CDI interceptor cannot reach (declared on the module or as the global
 * limit; a resource class that is not a CDI bean). What spans methods (limits sharing a name) is
 * {@link SharedNames}'.
 */
public final class LimitResolver {

    private LimitResolver() {
    }

    /**
     * The limits covering one method.
     *
     * @param global the configuration's global limit ({@link LimitDeclaration#global}), or null when there is none
     *               or it is not known yet (a build, before the run-time configuration); it covers resource methods
     *               only
     * @param method what a reader found for the method
     */
    public static ResolvedLimits resolve(LimitDeclaration global, MethodDeclarations method) {
        if (global != null && global.declaredOn() != DeclaredOn.GLOBAL) {
            throw new IllegalArgumentException("not the global limit: " + global);
        }
        List<LimitDeclaration> limits = new ArrayList<>();
        if (method.kind() == Kind.RESOURCE_METHOD) {
            if (global != null) {
                limits.add(global);
            }
            if (method.classLevel().isEmpty() && method.methodLevel().isEmpty()) {
                limits.addAll(method.module());
            }
        }
        limits.addAll(method.classLevel());
        limits.addAll(method.methodLevel());
        List<Problem> problems = new ArrayList<>();
        for (LimitDeclaration limit : limits) {
            check(limit, method.where(), method.kind(), problems);
        }
        checkNames(limits, method.where(), problems);
        KeyParameter key = checkKeys(method, limits, problems);
        return new ResolvedLimits(method.where(), method.kind(), limits, problems, key);
    }

    /**
     * The method's key parameter, when it has exactly one that an {@code ARGUMENT} limit uses; what is wrong with its
     * keys and its {@code ARGUMENT} limits added to {@code problems}.
     */
    private static KeyParameter checkKeys(MethodDeclarations method, List<LimitDeclaration> limits,
                                          List<Problem> problems) {
        LimitDeclaration byArgument = null;
        for (LimitDeclaration limit : limits) {
            if (limit.per() == RateLimitPer.ARGUMENT) {
                byArgument = limit;
                break;
            }
        }
        List<KeyParameter> keys = method.keys();
        String where = method.where();
        for (KeyParameter key : keys) {
            if (!key.typeAllowed()) {
                problems.add(new Problem(null, LimitRules.keyTypeNotAllowed(where, key)));
            }
        }
        if (keys.size() > 1) {
            problems.add(new Problem(null, LimitRules.twoKeys(where, keys)));
            return null;
        }
        if (byArgument == null) {
            if (!keys.isEmpty()) {
                problems.add(new Problem(null, LimitRules.keyWithoutArgumentLimit(where, keys.get(0))));
            }
            return null;
        }
        if (keys.isEmpty()) {
            problems.add(new Problem(byArgument, "@RateLimit on " + where + ": "
                    + LimitRules.argumentWithoutKey(byArgument.name(), LimitDeclaration.PER)));
            return null;
        }
        if (method.kind() == Kind.RESOURCE_METHOD && !method.interceptable()) {
            problems.add(new Problem(byArgument, "@RateLimit on " + where + ": "
                    + LimitRules.notInterceptable(byArgument.name(), where)));
        }
        return keys.get(0).typeAllowed() ? keys.get(0) : null;
    }

    /**
     * What is wrong with declarations on one element, apart from any method: the module's, checked at the
     * {@code Application} subclass (whether or not a method is left for them to cover). Each declaration's values,
     * and names used twice among them.
     *
     * @param kind what decides the methods they cover
     */
    public static List<Problem> check(List<LimitDeclaration> declarations, Kind kind) {
        List<Problem> problems = new ArrayList<>();
        for (LimitDeclaration d : declarations) {
            check(d, null, kind, problems);
        }
        if (!declarations.isEmpty()) {
            checkNames(declarations, declarations.get(0).place(), problems);
        }
        return problems;
    }

    /** The first value problem of a declaration (one is enough: the next would often follow from it). */
    private static void check(LimitDeclaration d, String method, Kind kind, List<Problem> problems) {
        for (String unreadable : d.unreadable()) {
            problems.add(new Problem(d, on(d, method) + unreadable));
        }
        String error;
        try {
            d.policy();
            error = LimitRules.costError(d.cost(), d.permitLimit());
        } catch (IllegalArgumentException e) {
            error = e.getMessage();
        }
        if (error == null) {
            error = LimitRules.maxWaitError(d.maxWaitMillis());
        }
        if (error == null && kind == Kind.RESOURCE_METHOD && d.maxWaitMillis() > 0) {
            error = LimitRules.resourceMethodWaits(d.name(), LimitDeclaration.MAX_WAIT_MILLIS, d.maxWaitMillis());
        }
        if (error == null && d.failuresOnly() && d.maxWaitMillis() > 0) {
            error = LimitRules.failuresOnlyWaits(d.name(), LimitDeclaration.MAX_WAIT_MILLIS, d.maxWaitMillis());
        }
        if (error == null && FailureStatuses.error(d.failureStatuses()) != null) {
            error = LimitDeclaration.FAILURE_STATUSES + " " + FailureStatuses.error(d.failureStatuses());
        }
        if (error == null && d.per() == RateLimitPer.ARGUMENT
                && (d.declaredOn() == DeclaredOn.MODULE || d.declaredOn() == DeclaredOn.GLOBAL)) {
            error = LimitRules.argumentNotOnTheMethod(d.name(), d.declaredOn());
        }
        if (error != null) {
            problems.add(new Problem(d, on(d, method) + error));
        }
    }

    /** One name twice among the limits covering a method would spend from one count twice per call. */
    private static void checkNames(List<LimitDeclaration> limits, String where, List<Problem> problems) {
        Set<String> names = new HashSet<>();
        Set<String> reported = new HashSet<>();
        for (LimitDeclaration limit : limits) {
            if (!names.add(limit.name()) && reported.add(limit.name())) {
                problems.add(new Problem(null, "@RateLimit on " + where + ": "
                        + LimitRules.duplicateName(limit.name())));
            }
        }
    }

    /**
     * How a problem names a declaration: {@code @RateLimit on TodoResource.all(): }, and for one declared on a class
     * or the module, the method it was found covering:
     * {@code @RateLimit on TodoResource (covering TodoResource.all()): }.
     */
    private static String on(LimitDeclaration d, String method) {
        if (d.declaredOn() == DeclaredOn.GLOBAL) {
            return d.place() + (method == null ? "" : " on " + method) + ": ";
        }
        if (method == null || d.declaredOn() == DeclaredOn.METHOD) {
            return "@RateLimit on " + (method == null ? d.place() : method) + ": ";
        }
        return "@RateLimit on " + d.place() + " (covering " + method + "): ";
    }
}
