package dev.ratelimit.tck.support;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves the {@link ServerUnderTest}: connected (or started) once, in the root store, so that every test
 * class of the run shares it and JUnit closes it when the run ends. A failure to start is remembered too,
 * so that a broken server fails each test at once instead of being started again for each.
 */
public final class ServerUnderTestExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ServerUnderTestExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ServerUnderTest.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Connection connection = context.getRoot().getStore(NAMESPACE)
                .computeIfAbsent(Connection.class, key -> Connection.open(), Connection.class);
        if (connection.failure != null) {
            throw new ParameterResolutionException("the server under test could not be reached or started", connection.failure);
        }
        return connection.server;
    }

    private record Connection(ServerUnderTest server, RuntimeException failure) implements AutoCloseable {

        static Connection open() {
            try {
                return new Connection(ServerUnderTest.connect(), null);
            } catch (RuntimeException e) {
                return new Connection(null, e);
            }
        }

        @Override
        public void close() throws Exception {
            if (server != null) {
                server.close();
            }
        }
    }
}
