package dev.ratelimit.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.tck.support.Reply;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The admin API is served at {@code ratelimit.admin.path}, whichever way a client writes that path. A path
 * is the same resource with its unreserved characters percent-encoded ({@code /%72atelimit}) and with its dot segments
 * removed ({@code /todos/../ratelimit}), so such forms reach the admin API as the plain one does, its role check with
 * them (401 without a caller, 403 without the role); a runtime may also refuse a dot segment itself (400, 404). No form
 * is ever counted by a limit (admin requests never are: an operator must get in during an incident), no form reaches
 * the resource's own fixed path, and a form that names the admin path only once decoded (an encoded slash) is not
 * served at all, never taken for another resource. Before matching the library takes every spelling of a path for the
 * same path; the runtimes do not agree on it (Jersey matches on the path as sent, dot segments included).
 *
 * <p>It runs in the suite's runs with the default path, and again in the live-limits-file run, against a server
 * started with {@code ratelimit.admin.path=/todos/admin} ({@value #ADMIN_PATH_PROPERTY}): a path among the
 * application's own resources, where a form the library did not take for the admin API would reach
 * {@code GET /todos/{id}} and be counted there.
 */
class AdminPathTest extends TckTestBase {

    /** The {@code ratelimit.admin.path} the server under test runs with; unset or blank: the default. */
    static final String ADMIN_PATH_PROPERTY = "tck.adminPath";
    static final String DEFAULT_ADMIN_PATH = "/ratelimit";
    /** The path the live-limits-file run configures. */
    static final String OTHER_ADMIN_PATH = "/todos/admin";
    /** Where the admin resource class itself is mapped: never served under this path. */
    static final String FIXED_PATH = "/ratelimit-admin-d5e3";

    private static String admin() {
        String path = System.getProperty(ADMIN_PATH_PROPERTY, "").strip();
        return path.isEmpty() ? DEFAULT_ADMIN_PATH : path;
    }

    @Test
    void theAdminPathIsTheAdminApiWithItsRoleCheckAndNoLimitAndTheOtherPathIsNot() {
        assertAdminApi(admin() + "/limits");
        // the default path when another is configured; the non-default one of the live-limits-file run otherwise
        assertNotServedNorCounted((admin().equals(DEFAULT_ADMIN_PATH) ? OTHER_ADMIN_PATH : DEFAULT_ADMIN_PATH) + "/limits");
    }

    @Test
    void percentEncodedUnreservedCharactersNameTheSamePath() {
        String admin = admin();
        assertAdminApi(encodeFirstLetter(admin) + "/limits");
        assertAdminApi(encodeLastSegmentsLetter(admin) + "/limits");
        assertAdminApi(admin.replace("t", "%74") + "/limits");
        assertAdminApi(admin + "/%6Cimits");
        assertAdminApi(admin + "/%6cimits");
    }

    @Test
    void dotSegmentFormsAreTheAdminApiOrRefusedNeverCounted() {
        String admin = admin();
        assertAdminApiOrNotServed("/todos/.." + admin + "/limits");
        assertAdminApiOrNotServed(admin + "/./limits");
        assertAdminApiOrNotServed(admin + "/limits/../limits");
        assertAdminApiOrNotServed("/todos/%2E%2E" + admin + "/limits");
        assertAdminApiOrNotServed("/%2e" + admin + "/limits");
    }

    @Test
    void theAdminPathsOwnRootInAnyFormIsNeverCounted() {
        String admin = admin();
        for (String form : List.of(admin, encodeFirstLetter(admin), encodeLastSegmentsLetter(admin), admin + "/",
                "/todos/.." + admin)) {
            assertNotServedNorCounted(form);
        }
    }

    @Test
    void anEncodedSlashIsNeverTheAdminApiNorAnotherResource() {
        String admin = admin();
        int last = admin.lastIndexOf('/');
        String encodedInside = last == 0 ? admin + "%2Flimits" : admin.substring(0, last) + "%2F" + admin.substring(last + 1)
                + "/limits";
        assertNotServedNorCounted(encodedInside);
        assertNotServedNorCounted(admin + "%2Flimits");
    }

    @Test
    void theResourcesFixedPathIsNotServedInAnyForm() {
        for (String form : List.of(FIXED_PATH + "/limits", FIXED_PATH.replace("d5e3", "d5e%33") + "/limits",
                "/todos/.." + FIXED_PATH + "/limits", "/todos/%2e%2e" + FIXED_PATH + "/limits",
                FIXED_PATH + "%2Flimits")) {
            assertNotServedNorCounted(form);
        }
    }

    /** 401 without a caller, 403 without the role, the limits for an operator; never a rate-limit header. */
    private void assertAdminApi(String path) {
        Reply anonymous = server.anonymous().get(path);
        assertThat(anonymous.status()).as("%s without a caller: %s", path, anonymous).isEqualTo(401);
        anonymous.assertNoRateLimitHeaders();
        Reply bob = server.as("bob").get(path);
        assertThat(bob.status()).as("%s without the role: %s", path, bob).isEqualTo(403);
        bob.assertNoRateLimitHeaders();
        Reply ops = server.as("ops:admin").get(path);
        assertThat(ops.status()).as("%s as an operator: %s", path, ops).isEqualTo(200);
        assertThat(ops.json().path("limits").isArray()).as("the limits: %s", ops).isTrue();
        ops.assertNoRateLimitHeaders();
    }

    /** The admin API (with its role check), or refused by the runtime for every caller alike; never counted. */
    private void assertAdminApiOrNotServed(String path) {
        Reply ops = server.as("ops:admin").get(path);
        if (ops.status() == 200) {
            assertAdminApi(path);
        } else {
            assertNotServedNorCounted(path);
        }
    }

    /**
     * An error whoever asks (404 from the library; the runtime may refuse a spelling itself, an encoded slash with 400,
     * or 500 on Grizzly), never the admin API's role check nor its answer, never a rate-limit header.
     */
    private void assertNotServedNorCounted(String path) {
        for (Reply reply : List.of(server.anonymous().get(path), server.as("bob").get(path),
                server.as("ops:admin").get(path), server.withFreshKey().get(path))) {
            assertThat(reply.status()).as("%s is not served: %s", path, reply).isGreaterThanOrEqualTo(400)
                    .isNotIn(401, 403);
            assertThat(reply.body()).as("%s: not the admin API's answer: %s", path, reply).doesNotContain("\"limits\"");
            reply.assertNoRateLimitHeaders();
        }
    }

    /**
     * {@code path} with the first letter of its last segment percent-encoded: under {@code /todos/admin},
     * {@code /todos/%61dmin}, which a runtime that decodes before matching takes for {@code GET /todos/{id}}.
     */
    private static String encodeLastSegmentsLetter(String path) {
        int last = path.lastIndexOf('/');
        return path.substring(0, last + 1) + "%" + Integer.toHexString(path.charAt(last + 1)).toUpperCase(Locale.ROOT)
                + path.substring(last + 2);
    }

    /** {@code path} with the first letter of its first segment percent-encoded. */
    private static String encodeFirstLetter(String path) {
        return "/%" + Integer.toHexString(path.charAt(1)).toUpperCase(Locale.ROOT) + path.substring(2);
    }
}
