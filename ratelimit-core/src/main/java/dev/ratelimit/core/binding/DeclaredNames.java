package dev.ratelimit.core.binding;

import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.SharedNames;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every limit name the bound call sites declare, in order of first declaration: its first declaration (what sizes
 * the programmatic API's limit of that name, and what the admin API reports) and every call site declaring it. Warns,
 * once per pair of call sites, when a name is shared by limits of different sizes.
 *
 * <p>Not thread-safe: the binder calls it holding its own lock.
 */
final class DeclaredNames {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    /** The first declaration of each name. */
    private final Map<String, First> first = new LinkedHashMap<>();
    /** Where each name is declared. */
    private final Map<String, Set<String>> declaredOn = new TreeMap<>();
    private final Set<String> sizeWarnings = new HashSet<>();

    /**
     * @param declaration the declaration: what configuration overrides apply to
     * @param effective   the policy in force when the call site was bound: what the size warning compares
     * @param exactKey    true when the call site's key counts as sent ({@code @RateLimitKey(exact = true)})
     */
    private record First(LimitDeclaration declaration, RateLimitPolicy effective, String where, RateLimitPer per,
                         boolean exactKey) {
        RateLimitPolicy declared() {
            return declaration.policy();
        }
    }

    /** Notes a declaration of a name by a call site that binds it. */
    void declare(String where, LimitDeclaration declaration, RateLimitPolicy effective, RateLimitPer per,
                 boolean exactKey) {
        RateLimitPolicy declared = declaration.policy();
        declaredOn.computeIfAbsent(declared.name(), n -> new LinkedHashSet<>()).add(where);
        First earlier = first.putIfAbsent(declared.name(), new First(declaration, effective, where, per, exactKey));
        if (earlier != null && !earlier.effective.sameSize(effective)
                && sizeWarnings.add(declared.name() + '\u0000' + earlier.where + '\u0000' + where)) {
            LOG.log(Level.WARNING, SharedNames.sizesDiffer(declared.name(), earlier.where, earlier.effective, where,
                    effective));
        }
    }

    /** Notes the first declaration of a name by a call site that binds nothing (no limit applies): no warning. */
    void declareUnbound(String where, LimitDeclaration declaration, RateLimitPer per) {
        first.putIfAbsent(declaration.name(), new First(declaration, declaration.policy(), where, per, false));
    }

    boolean contains(String name) {
        return first.containsKey(name);
    }

    /** Every name, in order of first declaration. */
    Set<String> names() {
        return first.keySet();
    }

    /** The call sites that declare a name, in the order they were bound. */
    List<String> where(String name) {
        return List.copyOf(declaredOn.getOrDefault(name, Set.of()));
    }

    /** The first declared policy of a name, or null. */
    RateLimitPolicy policy(String name) {
        First declaration = first.get(name);
        return declaration == null ? null : declaration.declared();
    }

    /** The first declaration of a name, or null. */
    LimitDeclaration declaration(String name) {
        First declaration = first.get(name);
        return declaration == null ? null : declaration.declaration;
    }

    /**
     * True when the first call site declaring a name takes its key as sent ({@code @RateLimitKey(exact = true)}): the
     * programmatic API and the admin API digest a value of that name so.
     */
    boolean exactKeys(String name) {
        First declaration = first.get(name);
        return declaration != null && declaration.exactKey;
    }

    /** Whose count the first declaration of a name spends from, or null. */
    RateLimitPer per(String name) {
        First declaration = first.get(name);
        return declaration == null ? null : declaration.per;
    }
}
