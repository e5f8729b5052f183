package dev.ratelimit.openapi.internal.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class IndexFormatTest {

    private static final IndexedLimit BURST = IndexedLimit.of("burst", 5, 1, RateLimitScope.TRANSPORT);
    private static final IndexedLimit HOURLY = IndexedLimit.of("hourly", 500, 3600, RateLimitScope.PRINCIPAL);
    private static final IndexedLimit REPORTS = new IndexedLimit(
            new RateLimitPolicy("reports", 10, 60, RateLimitAlgorithm.TOKEN_BUCKET), 4, RateLimitScope.TRANSPORT);

    @Test
    void whatIsWrittenReadsBackTheSame() throws IOException {
        IndexedApplication app = new IndexedApplication("a.App", "/api", List.of(BURST));
        IndexedMethod post = new IndexedMethod("a.Res", "POST", "/todos", "a.Res#create(a.Res$Body,int[])",
                List.of(), List.of(BURST, HOURLY, REPORTS));
        IndexedMethod odd = new IndexedMethod("a.Res", "GET", "/odd\tpath\\x", "a.Res#odd()", List.of(HOURLY), List.of());
        StringWriter out = new StringWriter();
        IndexFormat.write(out, List.of(app), List.of(post, odd));

        assertThat(out.toString()).contains("ratelimit-index\t2\n",
                "burst;5;1;TRANSPORT;SLIDING_WINDOW;1,hourly;500;3600;PRINCIPAL;SLIDING_WINDOW;1,reports;10;60;TRANSPORT;TOKEN_BUCKET;4");
        IndexFile read = IndexFormat.read(new StringReader(out.toString()), "test");
        assertThat(read.applications()).containsExactly(app);
        assertThat(read.methods()).containsExactlyInAnyOrder(post, odd);
        assertThat(read.methods().get(0).resourceClass()).isEqualTo("a.Res");
    }

    @Test
    void version1WrittenBeforeAlgorithmAndCostExistedReadsAsTheirDefaults() throws IOException {
        IndexFile read = IndexFormat.read(new StringReader("""
                ratelimit-index\t1
                application\ta.App\t/api\tmodule;100;60;TRANSPORT
                method\ta.R\tPOST\t/todos\ta.R#create()\t\tburst;5;1;TRANSPORT,hourly;500;3600;PRINCIPAL
                """), "old.jar");
        assertThat(read.applications().get(0).moduleLimits())
                .containsExactly(IndexedLimit.of("module", 100, 60, RateLimitScope.TRANSPORT));
        assertThat(read.methods().get(0).methodLimits()).containsExactly(BURST, HOURLY);
        assertThat(read.methods().get(0).methodLimits().get(0).policy().algorithm()).isEqualTo(RateLimitAlgorithm.SLIDING_WINDOW);
        assertThat(read.methods().get(0).methodLimits().get(0).cost()).isEqualTo(1);
    }

    @Test
    void recordKindsOfALaterVersionAreSkipped() throws IOException {
        IndexFile read = IndexFormat.read(new StringReader("ratelimit-index\t2\nsomething-new\tx\n"), "test");
        assertThat(read.methods()).isEmpty();
    }

    @Test
    void aLaterFormatVersionOrAMalformedLineIsAnErrorNamingTheSourceAndLine() {
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("ratelimit-index\t3\n"), "jar:x.jar!/idx"))
                .hasMessageContaining("jar:x.jar!/idx, line 1")
                .hasMessageContaining("format version 3 is newer than this ratelimit-openapi reads (1 to 2)")
                .hasMessageContaining("compiled with a later version of ratelimit-openapi");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("ratelimit-index\tx\n"), "f"))
                .hasMessageContaining("format version \"x\" is not a number");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("# c\nratelimit-index\t2\nmethod\ta\tGET\n"), "f"))
                .hasMessageContaining("f, line 3");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(
                "ratelimit-index\t2\nmethod\ta.R\tGET\t/x\ta.R#x()\t\tbad;0;1;TRANSPORT;SLIDING_WINDOW;1\n"), "f"))
                .hasMessageContaining("permitLimit must be >= 1, was 0");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(
                "ratelimit-index\t2\nmethod\ta.R\tGET\t/x\ta.R#x()\t\tx;1;1;TRANSPORT\n"), "f"))
                .hasMessageContaining("f, line 2").hasMessageContaining("name;permitLimit;windowSeconds;scope;algorithm;cost");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(
                "ratelimit-index\t2\nmethod\ta.R\tGET\t/x\ta.R#x()\t\tx;3;1;TRANSPORT;SLIDING_WINDOW;4\n"), "f"))
                .hasMessageContaining("cost must be between 1 and permitLimit (3), was 4");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(""), "f")).hasMessageContaining("not a ratelimit index");
    }

    @Test
    void methodKeysAreWrittenAsClassGetTypeNameWritesTypes() throws Exception {
        class Local {
            public void m(String[] a, int b, java.util.Map.Entry<String, String> c) {
            }
        }
        assertThat(IndexFormat.methodKey(IndexFormatTest.class,
                Local.class.getMethod("m", String[].class, int.class, java.util.Map.Entry.class)))
                .isEqualTo("dev.ratelimit.openapi.internal.index.IndexFormatTest#m(java.lang.String[],int,java.util.Map$Entry)");
    }
}
