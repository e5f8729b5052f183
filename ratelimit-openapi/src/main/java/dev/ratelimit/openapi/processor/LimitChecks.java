package dev.ratelimit.openapi.processor;

import dev.ratelimit.core.LimitRules;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.openapi.internal.index.IndexedLimit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.tools.Diagnostic;

/**
 * Validation: reads the {@code @RateLimit}s of the source and holds them to the rules the runtime holds them to
 * when the application deploys ({@link RateLimitPolicy}'s ranges, {@link LimitRules}), with the runtime's
 * messages, as compile errors. Each error is reported once, however many methods a class limit covers.
 */
final class LimitChecks {

    private static final String RATE_LIMIT = "dev.ratelimit.RateLimit";
    private static final String RATE_LIMIT_LIST = "dev.ratelimit.RateLimit.List";

    private final AnnotationValues values;
    private final Messager messager;
    /** Errors already reported: a class limit covers many methods, a method may be reached through two locators. */
    private final Set<String> reported = new HashSet<>();
    private final Set<AnnotationMirror> reportedLimits = Collections.newSetFromMap(new IdentityHashMap<>());

    LimitChecks(AnnotationValues values, Messager messager) {
        this.values = values;
        this.messager = messager;
    }

    /** One {@code @RateLimit} as written: its values (defaults filled in) and where, for messages. */
    record Limit(String name, int permitLimit, int windowSeconds, String scope, String algorithm, int cost, long maxWaitMillis,
                 Element on, AnnotationMirror mirror) {
    }

    /** The {@code @RateLimit}s directly on {@code element}, in declaration order (repeated ones sit in their container). */
    List<Limit> limitsOn(Element element) {
        List<Limit> limits = new ArrayList<>();
        for (AnnotationMirror a : element.getAnnotationMirrors()) {
            String type = ((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().toString();
            if (type.equals(RATE_LIMIT)) {
                limits.add(limit(element, a));
            } else if (type.equals(RATE_LIMIT_LIST)) {
                Object value = values.value(a, "value");
                if (value instanceof List<?> list) {
                    for (Object item : list) {
                        if (((AnnotationValue) item).getValue() instanceof AnnotationMirror m) {
                            limits.add(limit(element, m));
                        }
                    }
                }
            }
        }
        return limits;
    }

    /** Members read by name from the source's annotation: the class being compiled cannot be reflected on. */
    private Limit limit(Element on, AnnotationMirror a) {
        Object algorithm = values.value(a, "algorithm");
        Object cost = values.value(a, "cost");
        return new Limit((String) values.value(a, "name"), (Integer) values.value(a, "permitLimit"), (Integer) values.value(a, "windowSeconds"),
                enumConstant(values.value(a, "scope"), RateLimitScope.TRANSPORT.name()),
                enumConstant(algorithm, RateLimitAlgorithm.SLIDING_WINDOW.name()),
                cost instanceof Integer c ? c : 1, values.value(a, "maxWaitMillis") instanceof Long w ? w : 0, on, a);
    }

    private static String enumConstant(Object value, String absent) {
        if (value == null) {
            return absent;
        }
        return value instanceof VariableElement v ? v.getSimpleName().toString() : String.valueOf(value);
    }

    /** The limits, each checked as the runtime checks it (cost included); an invalid one is a compile error and left out. */
    List<IndexedLimit> validated(List<Limit> limits, String where) {
        List<IndexedLimit> valid = new ArrayList<>();
        for (Limit limit : limits) {
            try {
                RateLimitAlgorithm algorithm;
                try {
                    algorithm = RateLimitAlgorithm.valueOf(limit.algorithm());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("algorithm " + limit.algorithm() + " is not one this version of "
                            + "ratelimit-openapi knows (" + Arrays.toString(RateLimitAlgorithm.values()) + ")");
                }
                IndexedLimit indexed = new IndexedLimit(new RateLimitPolicy(limit.name(), limit.permitLimit(),
                        limit.windowSeconds(), algorithm), limit.cost(), RateLimitScope.valueOf(limit.scope()));
                String waitError = LimitRules.maxWaitError(limit.maxWaitMillis());
                if (waitError == null && limit.maxWaitMillis() > 0) {
                    // every limit indexed here covers resource methods, which refuse at once
                    waitError = LimitRules.resourceMethodWaits(limit.name(), "maxWaitMillis", limit.maxWaitMillis());
                }
                if (waitError != null) {
                    throw new IllegalArgumentException(waitError);
                }
                valid.add(indexed);
            } catch (IllegalArgumentException e) {
                String on = limit.on() instanceof TypeElement t && !where.equals(t.getSimpleName().toString())
                        ? t.getSimpleName() + " (covering " + where + ")" : where;
                if (reportedLimits.add(limit.mirror())) {
                    messager.printMessage(Diagnostic.Kind.ERROR, "@RateLimit on " + on + ": " + e.getMessage(),
                            limit.on(), limit.mirror());
                }
            }
        }
        return valid;
    }

    void checkUniqueNames(String where, Element method, List<IndexedLimit> classLimits,
                                  List<IndexedLimit> methodLimits) {
        Set<String> names = new HashSet<>();
        List<IndexedLimit> all = new ArrayList<>(classLimits);
        all.addAll(methodLimits);
        for (IndexedLimit limit : all) {
            if (!names.add(limit.policy().name())) {
                error("@RateLimit on " + where + ": " + LimitRules.duplicateName(limit.policy().name()), method);
            }
        }
    }

    private void error(String message, Element element) {
        if (reported.add(message)) {
            messager.printMessage(Diagnostic.Kind.ERROR, message, element);
        }
    }

}
