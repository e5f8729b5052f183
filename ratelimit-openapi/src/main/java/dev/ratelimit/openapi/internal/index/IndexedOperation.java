package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.ResolvedLimits;
import java.util.List;

/**
 * A resource method under one path with the limits that cover it, as the resolver decides them for every runtime,
 * global limits excepted: they are configuration, and the document does not publish them.
 *
 * @param httpMethod   {@code GET}, {@code POST}, ...
 * @param path         the full path: application path, class, locators, method; normalized
 * @param relativePath the path below the application path
 * @param javaMethod   the resource method, see {@link IndexFormat#methodKey}
 * @param resolved     its module, class and method limits in order, as declared (before configuration)
 */
public record IndexedOperation(String httpMethod, String path, String relativePath, String javaMethod,
                               ResolvedLimits resolved) {

    /** Its limits in order. */
    public List<LimitDeclaration> limits() {
        return resolved.limits();
    }

    public boolean isLimited() {
        return !resolved.isEmpty();
    }

    /** {@code GET /todos (TodoResource#all())}: how messages name it. */
    public String describe() {
        String simple = javaMethod.substring(javaMethod.lastIndexOf('.', javaMethod.indexOf('#')) + 1);
        return httpMethod + " " + path + " (" + simple + ")";
    }
}
