package dev.ratelimit.openapi.internal.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.openapi.testapp.ItemResource;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

class IndexCheckFeatureTest {

    private static ResourceInfo info(Class<?> type, Method method) {
        return new ResourceInfo() {
            @Override
            public Method getResourceMethod() {
                return method;
            }

            @Override
            public Class<?> getResourceClass() {
                return type;
            }
        };
    }

    @Test
    void readsTheApplicationsIndexOnceOnTheFirstResourceMethodAndRegistersNothing() throws Exception {
        IndexCheckFeature feature = new IndexCheckFeature();
        feature.configure(info(null, null), null);
        assertThat(feature.check).isNull();
        feature.configure(info(ItemResource.class, ItemResource.class.getMethod("all")), null);
        IndexCheck first = feature.check;
        assertThat(first).isNotNull();
        feature.configure(info(ItemResource.class, ItemResource.class.getMethod("one", long.class)), null);
        assertThat(feature.check).isSameAs(first);
    }
}
