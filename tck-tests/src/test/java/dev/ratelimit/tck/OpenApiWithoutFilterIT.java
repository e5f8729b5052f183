package dev.ratelimit.tck;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document of an application that has not registered ratelimit-openapi's filter (a server started with
 * {@code -Dmp.openapi.filter=} empty): the admin API's resource class, in the library's jar, is never documented under
 * its fixed path, whether the admin API is on or off (docs/openapi.md, "The admin API"). A runtime that scans the
 * library's jar for resources (Open Liberty) listed {@code /ratelimit-admin-d5e3/limits} and its siblings there.
 *
 * <p>Runs only in a run of its own, against a server started for it: {@value #ADMIN_PROPERTY} ({@code on} or
 * {@code off}) says how that server was started, and a run that lost it fails. The class checks that the server
 * really is so: the document carries none of the filter's additions, and the admin API answers as said.
 */
class OpenApiWithoutFilterIT extends TckTestBase {

    static final String ADMIN_PROPERTY = "tck.adminApi";
    private static final String FIXED_PATH_SEGMENT = "ratelimit-admin";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theAdminApisFixedPathIsNotInTheDocument() {
        String admin = System.getProperty(ADMIN_PROPERTY, "");
        assertThat(admin).as("%s: on or off, as the server under test was started (this class runs only in a run of its "
                + "own, against a server started without mp.openapi.filter)", ADMIN_PROPERTY).isIn("on", "off");

        // the server is the one this class is about: the admin API as said, and no filter
        server.as("ops:admin").get(AdminTest.ADMIN + "/limits").assertStatus(admin.equals("on") ? 200 : 404);
        String text = server.anonymous().withHeader("Accept", "application/json").get(OpenApiDocumentTest.openApiPath())
                .assertStatus(200).body();
        JsonNode document;
        try {
            document = JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException("the document served as JSON is not JSON: " + text, e);
        }
        List<String> paths = new ArrayList<>();
        document.path("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).as("the example's resources are documented").contains(TODOS, TODOS + "/{id}");
        assertThat(text).as("a document the filter did not touch has no x-ratelimit extension").doesNotContain("x-ratelimit");

        assertThat(paths).as("paths of the document").noneMatch(path -> path.contains(FIXED_PATH_SEGMENT));
        assertThat(text).as("the document names no path of the admin resource").doesNotContain(FIXED_PATH_SEGMENT);
    }
}
