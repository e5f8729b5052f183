package dev.ratelimit.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.testing.LogRecords;
import java.util.List;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * Values in the log (docs/operating-limits.md, "What the log shows"): no value a client or an operator chose can end
 * a log line and write one of its own.
 */
class LogTextTest {

    @Test
    void plainTextIsUnchanged() {
        String text = "X-Api-Key:alice@example.com \u00e9\u4e2d \"quoted\" 10.0.0.1";
        assertThat(LogText.of(text)).isSameAs(text);
        assertThat(LogText.of(null)).isEqualTo("null");
        assertThat(LogText.of(42)).isEqualTo("42");
    }

    @Test
    void lineBreaksAndTabsAreWrittenAsTheirEscapes() {
        assertThat(LogText.of("a\nWARNING: forged")).isEqualTo("a\\nWARNING: forged");
        assertThat(LogText.of("a\r\nb\tc")).isEqualTo("a\\r\\nb\\tc");
    }

    @Test
    void everyOtherControlCharacterAndTheUnicodeSeparatorsAreWrittenAsUnicodeEscapes() {
        assertThat(LogText.of("\u0000\u001b[31m\u007f")).isEqualTo("\\u0000\\u001B[31m\\u007F");
        assertThat(LogText.of("a\u0085b\u009fc")).as("C1, NEL among them").isEqualTo("a\\u0085b\\u009Fc");
        assertThat(LogText.of("a\u2028b\u2029c")).isEqualTo("a\\u2028b\\u2029c");
        for (char c = 0; c < 0x20; c++) {
            assertThat(LogText.of(String.valueOf(c))).as("U+%04X", (int) c).startsWith("\\").doesNotContain(String.valueOf(c));
        }
    }

    @Test
    void aBackslashIsDoubledSoThatAnEscapeAlwaysMeansAnEscapedCharacter() {
        assertThat(LogText.of("a\\nb")).as("a backslash and an n, as sent").isEqualTo("a\\\\nb");
        assertThat(LogText.of("a\\nb")).isNotEqualTo(LogText.of("a\nb"));
    }

    @Test
    void quotedPutsTheEscapedValueInDoubleQuotes() {
        assertThat(LogText.quoted("a\nb")).isEqualTo("\"a\\nb\"");
    }

    /** Through a real record: System.Logger goes to java.util.logging unless a runtime routes it elsewhere. */
    @Test
    void aRecordLoggedWithAnEscapedValueHoldsOneLine() {
        List<LogRecord> records;
        try (LogRecords logs = LogRecords.on("dev.ratelimit.logtext").quiet()) {
            System.getLogger("dev.ratelimit.logtext").log(System.Logger.Level.WARNING, "ratelimit: the partition "
                    + LogText.quoted("X-Api-Key:a\nWARNING: ratelimit: forged\u2028line") + " was started afresh");
            records = logs.records();
        }
        assertThat(records).singleElement().extracting(LogRecord::getMessage).asString()
                .isEqualTo("ratelimit: the partition \"X-Api-Key:a\\nWARNING: ratelimit: forged\\u2028line\" was "
                        + "started afresh")
                .doesNotContain("\n", "\r", "\u2028");
    }
}
