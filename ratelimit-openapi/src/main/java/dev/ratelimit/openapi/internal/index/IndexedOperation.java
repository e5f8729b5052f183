package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.cdi.ResolvedLimit;
import java.util.List;

/**
 * A resource method under one path with the limits that cover it, resolved as the runtime resolves
 * them (SPEC 2: module limits only where neither the class nor the method declares one), global
 * limits excepted: they are configuration, and the document does not publish them.
 *
 * @param httpMethod   {@code GET}, {@code POST}, ...
 * @param path         the full path: application path, class, locators, method; normalized
 * @param relativePath the path below the application path
 * @param javaMethod   the resource method, see {@link IndexFormat#methodKey}
 * @param limits       module, class and method limits in order, as declared (before configuration)
 */
public record IndexedOperation(String httpMethod, String path, String relativePath, String javaMethod,
                               List<ResolvedLimit> limits) {

    public IndexedOperation {
        limits = List.copyOf(limits);
    }

    public boolean isLimited() {
        return !limits.isEmpty();
    }

    /** {@code GET /todos (TodoResource#all())}: how messages name it. */
    public String describe() {
        String simple = javaMethod.substring(javaMethod.lastIndexOf('.', javaMethod.indexOf('#')) + 1);
        return httpMethod + " " + path + " (" + simple + ")";
    }
}
