package dev.ratelimit.core.binding;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The partition of a limit per argument: the value's text normalised (NFKC, stripped, lower-cased with
 * {@code Locale.ROOT}) unless the key is exact, then {@code arg:} and the first 16 bytes of its HMAC-SHA-256 keyed by
 * the secret, base64url without padding.
 */
class ArgumentKeysTest {

    private static final String SECRET = "an example secret, 32 chars long";
    private final ArgumentKeys keys = ArgumentKeys.of(SECRET);

    @Test
    void caseAndWhiteSpaceAroundTheValueShareOneCount() {
        assertThat(keys.partition(" Alice", false)).isEqualTo(keys.partition("alice", false))
                .isEqualTo(keys.partition("ALICE", false)).isEqualTo(keys.partition("\talice\n", false));
        assertThat(keys.partition("alice", false)).isNotEqualTo(keys.partition("alicia", false));
    }

    @Test
    void anAsciiKeyNormalisedAsItIsDigestedIsTheDigestOfItsNormalisedText() {
        StringBuilder every = new StringBuilder();
        for (char c = 0; c < 0x80; c++) {
            every.append(c);
        }
        String[] texts = {"Alice", " \t\u000B\f\r\n\u001C\u001FBob Smith\u001E\u001D ", every.toString(),
            every.toString().strip(), "x".repeat(200) + "Y", "", " ", "\u0000zero\u007F", "@[`{"};
        for (String text : texts) {
            assertThat(keys.partition(text, false)).as("%s", text.chars().boxed().toList())
                    .isEqualTo(keys.digest(text.strip().toLowerCase(Locale.ROOT)))
                    .isEqualTo(keys.digest(ArgumentKeys.normalize(text)));
        }
        assertThat(keys.partition("x".repeat(200) + "Y", false)).as("after a longer key, a short one")
                .isNotEqualTo(keys.partition("Carol", false)).isEqualTo(keys.partition("x".repeat(200) + "y", true));
        assertThat(keys.partition("Carol", false)).isEqualTo("arg:ZLsAxOmIpTUF96wVxfqzuQ");
    }

    @Test
    void nfkcFoldsCompatibilityCharactersBeforeTheCaseIsLowered() {
        assertThat(ArgumentKeys.normalize("\uFF21\uFF4C\uFF49\uFF43\uFF45")).as("full-width letters").isEqualTo("alice");
        assertThat(ArgumentKeys.normalize("\uFB01le")).as("the ligature fi").isEqualTo("file");
        assertThat(ArgumentKeys.normalize("\u212Aelvin")).as("the Kelvin sign is a K").isEqualTo("kelvin");
        assertThat(ArgumentKeys.normalize("Cafe\u0301")).as("a combining accent composes").isEqualTo("caf\u00E9");
        assertThat(keys.partition("\uFF43\uFF41\uFF52\uFF4F\uFF4C", false)).isEqualTo(keys.partition("carol", false));
    }

    @Test
    void aNoBreakSpaceAroundTheValueIsStrippedOnceNfkcMadeItASpace() {
        assertThat("\u00A0carol".strip()).as("strip alone keeps a no-break space").isNotEqualTo("carol");
        assertThat(ArgumentKeys.normalize("\u00A0carol\u00A0")).isEqualTo("carol");
        assertThat(ArgumentKeys.normalize("\u2007CAROL\u202F")).as("figure and narrow no-break spaces").isEqualTo("carol");
        assertThat(ArgumentKeys.normalize("car ol")).as("white space inside stays").isEqualTo("car ol");
    }

    @Test
    void lowerCasingUsesTheRootLocaleNotTheDefaultOne() {
        Locale before = Locale.getDefault();
        Locale.setDefault(Locale.forLanguageTag("tr-TR")); // where "I" lower-cases to a dotless i
        try {
            assertThat("TITLE".toLowerCase()).as("the Turkish default is in force").isEqualTo("t\u0131tle");
            assertThat(ArgumentKeys.normalize("TITLE")).as("a dotted i, as in Locale.ROOT (never the Turkish dotless one)")
                    .isEqualTo("title");
            assertThat(keys.partition("TITLE", false)).isEqualTo(keys.partition("title", false));
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void anExactKeyCountsTheValueAsSent() {
        assertThat(keys.partition("Alice", true)).isNotEqualTo(keys.partition("alice", true));
        assertThat(keys.partition(" alice", true)).isNotEqualTo(keys.partition("alice", true));
        assertThat(keys.partition("alice", true)).isEqualTo(keys.partition("alice", false));
    }

    @Test
    void nullIsTheEmptyValueAndOtherTypesCountByTheirText() {
        assertThat(keys.partition(null, false)).isEqualTo(keys.partition("", false)).isEqualTo(keys.partition("  ", false));
        assertThat(keys.partition(42, false)).isEqualTo(keys.partition("42", false));
        assertThat(keys.partition(Thread.State.NEW, false)).as("an enum by its name").isEqualTo(keys.partition("new", false));
        UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        assertThat(keys.partition(id, false)).isEqualTo(keys.partition("123E4567-E89B-12D3-A456-426614174000", false));
        assertThat(keys.partition(new StringBuilder("Bob"), false)).as("a CharSequence").isEqualTo(keys.partition("bob", false));
    }

    @Test
    void thePartitionIsTheFirstSixteenBytesOfTheHmacBase64UrlWithoutPadding() {
        // RFC 4231-style check against a known HMAC-SHA-256 (key "key"): f7bc83f430538424b13298e6aa6fb143...
        ArgumentKeys known = new ArgumentKeys("key".getBytes(StandardCharsets.UTF_8));
        assertThat(known.digest("The quick brown fox jumps over the lazy dog")).isEqualTo("arg:97yD9DBThCSxMpjmqm-xQw");
        assertThat(keys.partition("Carol", false)).isEqualTo("arg:ZLsAxOmIpTUF96wVxfqzuQ").hasSize(4 + 22)
                .doesNotContainIgnoringCase("carol");
    }

    @Test
    void anotherSecretGivesAnotherDigestAndNoSecretARandomOnePerStart() {
        assertThat(ArgumentKeys.of("another secret of 32 characters!").partition("carol", false))
                .isNotEqualTo(keys.partition("carol", false));
        ArgumentKeys random = ArgumentKeys.of(null);
        assertThat(random.partition("carol", false)).isEqualTo(random.partition("Carol", false))
                .isNotEqualTo(ArgumentKeys.of(null).partition("carol", false));
    }

    @Test
    void manyThreadsDigestAlike() throws InterruptedException {
        String expected = keys.partition("dave", false);
        String[] seen = new String[8];
        Thread[] threads = new Thread[seen.length];
        for (int i = 0; i < threads.length; i++) {
            int at = i;
            threads[i] = new Thread(() -> {
                for (int n = 0; n < 1000; n++) {
                    seen[at] = keys.partition(n % 2 == 0 ? "Dave" : " dave", false);
                }
            });
            threads[i].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(seen).containsOnly(expected);
    }
}
