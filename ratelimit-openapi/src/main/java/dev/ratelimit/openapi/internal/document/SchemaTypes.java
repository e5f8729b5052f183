package dev.ratelimit.openapi.internal.document;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;

/**
 * Sets a schema's type on MicroProfile OpenAPI 3.x ({@code setType(SchemaType)}, Payara 6) and 4.x
 * ({@code setType(List<SchemaType>)}, Quarkus, Open Liberty mpOpenAPI-4.0) alike: the method
 * changed between the two, and this jar runs on both.
 */
final class SchemaTypes {

    private static final MethodHandle SINGLE = find(SchemaType.class);
    private static final MethodHandle LIST = SINGLE == null ? find(List.class) : null;

    private SchemaTypes() {
    }

    static Schema typed(Schema schema, SchemaType type) {
        try {
            if (SINGLE != null) {
                SINGLE.invoke(schema, type);
            } else if (LIST != null) {
                LIST.invoke(schema, List.of(type));
            } else {
                throw new IllegalStateException("this MicroProfile OpenAPI API has neither Schema.setType(SchemaType) "
                        + "nor Schema.setType(List)");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("Schema.setType failed", e);
        }
        return schema;
    }

    private static MethodHandle find(Class<?> parameter) {
        try {
            return MethodHandles.publicLookup().findVirtual(Schema.class, "setType",
                    MethodType.methodType(void.class, parameter));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
