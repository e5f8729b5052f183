package dev.ratelimit.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.jaxrs.internal.AdminResource;
import dev.ratelimit.openapi.testapp.Item;
import dev.ratelimit.openapi.testapp.ItemResource;
import dev.ratelimit.openapi.testapp.ShopApplication;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.junit.jupiter.api.Test;

/**
 * The admin API's resource class scanned with the application, as a runtime that scans the library's jar does (Open
 * Liberty): its fixed path is never in the document, with the filter or without it, the admin API on or off
 * (docs/openapi.md, "The admin API"). With the filter and the admin API on, its operations are documented under
 * {@code ratelimit.admin.path}. Over HTTP on Open Liberty without the filter: tck-tests' {@code OpenApiWithoutFilterIT}.
 */
class AdminResourceScanTest {

    private static final String ITEMS = "/api/items";
    private static final Map<String, String> ADMIN_ON = Map.of(AdminSettings.ENABLED, "true", AdminSettings.ROLE, "admin");

    @Test
    void withoutTheFilterTheAdminResourcesFixedPathIsNotDocumented() {
        for (Map<String, String> config : List.of(Map.<String, String>of(), ADMIN_ON)) {
            List<String> paths = paths(OpenApiDocuments.build(config, ShopApplication.class, ItemResource.class,
                    Item.class, AdminResource.class));
            assertThat(paths).as("the application's own resource is scanned (config %s)", config).contains(ITEMS);
            assertThat(paths).as("config %s", config).noneMatch(AdminResourceScanTest::internal);
        }
    }

    @Test
    void withTheFilterTheAdminOperationsAreDocumentedUnderTheAdminPathOnlyWhenOn() {
        Map<String, String> off = Map.of(OpenApiDocuments.FILTER, RateLimitOASFilter.class.getName());
        List<String> paths = paths(OpenApiDocuments.build(off, ShopApplication.class, ItemResource.class, Item.class,
                AdminResource.class));
        assertThat(paths).contains(ITEMS).noneMatch(AdminResourceScanTest::internal)
                .noneMatch(p -> p.startsWith(AdminSettings.DEFAULT_PATH + "/"));

        Map<String, String> on = new HashMap<>(ADMIN_ON);
        on.put(OpenApiDocuments.FILTER, RateLimitOASFilter.class.getName());
        on.put(AdminSettings.PATH, "/ops/limits-admin");
        paths = paths(OpenApiDocuments.build(on, ShopApplication.class, ItemResource.class, Item.class,
                AdminResource.class));
        assertThat(paths).contains(ITEMS, "/ops/limits-admin/limits", "/ops/limits-admin/limits/{name}/partitions/{partition}",
                "/ops/limits-admin/limits/{name}/refused").noneMatch(AdminResourceScanTest::internal);
    }

    private static boolean internal(String path) {
        return path.contains(AdminSettings.INTERNAL_PATH.substring(1));
    }

    private static List<String> paths(OpenAPI document) {
        return document.getPaths() == null || document.getPaths().getPathItems() == null ? List.of()
                : List.copyOf(document.getPaths().getPathItems().keySet());
    }
}
