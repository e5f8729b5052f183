package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.quarkus.runtime.RateLimitFilters;
import dev.ratelimit.quarkus.runtime.ScopeFilter;
import jakarta.ws.rs.Priorities;
import org.jboss.jandex.Index;
import org.junit.jupiter.api.Test;

/** Which request filters of an application keep the scopes' filters off the event loop (found in its index). */
class FirstBlockingRequestFilterTest {

    @Test
    void anApplicationWithoutRequestFiltersHasNone() throws Exception {
        assertThat(RateLimitProcessor.firstBlockingRequestFilter(Index.of(ItemResource.class)))
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void theLibrarysOwnFiltersDoNotCount() throws Exception {
        assertThat(RateLimitProcessor.firstBlockingRequestFilter(Index.of(RateLimitFilters.class, ScopeFilter.class,
                ScopeFilter.Transport.class, ScopeFilter.Principal.class))).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aUsersAuthenticationFilterCountsAtItsPriorityThoughItsPackageIsTheLibrarys() throws Exception {
        assertThat(RateLimitProcessor.firstBlockingRequestFilter(Index.of(TestSecurityFilters.Authentication.class,
                TestSecurityFilters.Authorization.class))).isEqualTo(Priorities.AUTHENTICATION);
    }
}
