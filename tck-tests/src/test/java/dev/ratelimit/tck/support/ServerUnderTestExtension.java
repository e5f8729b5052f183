package dev.ratelimit.tck.support;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves the {@link ServerUnderTest}: connected (or started) once, in the root store, so that every test
 * class of the run shares it and JUnit closes it when the run ends.
 */
public final class ServerUnderTestExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ServerUnderTestExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ServerUnderTest.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .computeIfAbsent(ServerUnderTest.class, key -> ServerUnderTest.connect(), ServerUnderTest.class);
    }
}
