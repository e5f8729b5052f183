package dev.ratelimit.core.declaration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a reader hands over becomes the declaration, whatever form the reader finds each member in. */
class LimitDeclarationTest {

    @Test
    void membersNotHandedOverKeepTheDefaultsOfTheAnnotation() {
        LimitDeclaration d = LimitDeclaration.builder(DeclaredOn.METHOD, "R.m()").build();
        assertThat(d.policy()).isEqualTo(new RateLimitPolicy("default", 100, 60, RateLimitAlgorithm.SLIDING_WINDOW));
        assertThat(d).extracting(LimitDeclaration::scope, LimitDeclaration::cost, LimitDeclaration::maxWaitMillis,
                LimitDeclaration::per, LimitDeclaration::unreadable)
                .containsExactly(RateLimitScope.TRANSPORT, 1, 0L, RateLimitPer.CALLER, java.util.List.of());
    }

    @Test
    void eachReadersFormOfAValueMakesTheSameDeclaration() {
        // reflection: boxes and constants; Jandex and the compiler: boxes and constant names; the index file: text
        LimitDeclaration reflected = LimitDeclaration.builder(DeclaredOn.METHOD, "R.m()").member("name", "burst")
                .member("permitLimit", 5).member("algorithm", RateLimitAlgorithm.TOKEN_BUCKET)
                .member("maxWaitMillis", 250L).member("per", RateLimitPer.APPLICATION).build();
        LimitDeclaration indexed = LimitDeclaration.builder(DeclaredOn.METHOD, "R.m()").member("name", "burst")
                .member("permitLimit", "5").member("algorithm", "TOKEN_BUCKET").member("maxWaitMillis", "250")
                .member("per", "APPLICATION").build();
        assertThat(indexed).isEqualTo(reflected);
        assertThat(reflected.describe()).isEqualTo("\"burst\" 5/60s TOKEN_BUCKET wait 250 ms per APPLICATION");
    }

    @Test
    void membersGiveEveryMemberBackByNameAndReadBackTheSame() {
        LimitDeclaration d = LimitDeclaration.builder(DeclaredOn.CLASS, "R").name("reports").permitLimit(10)
                .cost(4).scope(RateLimitScope.PRINCIPAL).algorithm(RateLimitAlgorithm.STRICT_WINDOW).build();
        Map<String, Object> members = d.members();
        assertThat(members).containsOnlyKeys(LimitDeclaration.MEMBERS);
        LimitDeclaration.Builder again = LimitDeclaration.builder(DeclaredOn.CLASS, "R");
        members.forEach((member, value) -> again.member(member, String.valueOf(value)));
        assertThat(again.build()).isEqualTo(d);
    }

    @Test
    void aValueOfTheWrongTypeOrAnUnknownMemberIsKeptNamingTheMemberAndTheValue() {
        LimitDeclaration d = LimitDeclaration.builder(DeclaredOn.METHOD, "R.m()").member("permitLimit", 3_000_000_000L)
                .member("windowSeconds", "soon").member("name", 7).member("scope", "EVERYWHERE")
                .member("burstiness", true).build();
        assertThat(d.unreadable()).containsExactly("permitLimit must be an int, was 3000000000",
                "windowSeconds must be a whole number, was soon",
                "name must be text, was 7",
                "scope EVERYWHERE is not one this version of ratelimit knows [TRANSPORT, PRINCIPAL]",
                "the member burstiness (true) is not one this version of ratelimit reads " + LimitDeclaration.MEMBERS);
        assertThat(d.permitLimit()).isEqualTo(100);
    }
}
