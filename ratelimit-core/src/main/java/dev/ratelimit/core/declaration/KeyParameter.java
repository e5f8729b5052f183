package dev.ratelimit.core.declaration;

import java.util.Objects;
import java.util.Set;

/**
 * A parameter of a method that carries {@code @RateLimitKey}, as a reader found it: what a {@code per = ARGUMENT}
 * limit of the method counts by. Immutable.
 *
 * @param position its index among the method's parameters, from 0
 * @param type     its type as {@link Class#getName()} writes it ({@code java.lang.String}, {@code int},
 *                 {@code java.util.UUID}), and the simple name in messages
 * @param isEnum   true when its type is an enum
 * @param exact    {@code @RateLimitKey(exact = true)}: the value counts as sent, neither folded to lower case nor
 *                 normalised
 */
public record KeyParameter(int position, String type, boolean isEnum, boolean exact) {

    /** The types a key may have besides enums: text, a primitive or its box, a UUID. */
    private static final Set<String> TYPES = Set.of("java.lang.String", "java.lang.CharSequence", "boolean", "byte",
            "char", "short", "int", "long", "float", "double", "java.lang.Boolean", "java.lang.Byte",
            "java.lang.Character", "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
            "java.lang.Double", "java.util.UUID");

    public KeyParameter {
        Objects.requireNonNull(type, "type");
        if (position < 0) {
            throw new IllegalArgumentException("position must be >= 0, was " + position);
        }
    }

    /**
     * True when a value of this type is a key: its text is the same on every call for the same value, and holds
     * nothing but the value (an object's {@code toString} may differ per call, or hold a password).
     */
    public boolean typeAllowed() {
        return isEnum || TYPES.contains(type);
    }

    /** The type's simple name: {@code String}, {@code int}, {@code Credentials}. */
    public String simpleType() {
        return type.substring(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1);
    }
}
