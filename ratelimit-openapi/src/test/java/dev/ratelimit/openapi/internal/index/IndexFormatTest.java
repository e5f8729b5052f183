package dev.ratelimit.openapi.internal.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class IndexFormatTest {

    private static final RateLimitPolicy BURST = new RateLimitPolicy("burst", 5, 1, RateLimitScope.TRANSPORT);
    private static final RateLimitPolicy HOURLY = new RateLimitPolicy("hourly", 500, 3600, RateLimitScope.PRINCIPAL);

    @Test
    void whatIsWrittenReadsBackTheSame() throws IOException {
        IndexedApplication app = new IndexedApplication("a.App", "/api", List.of(BURST));
        IndexedMethod post = new IndexedMethod("a.Res", "POST", "/todos", "a.Res#create(a.Res$Body,int[])",
                List.of(), List.of(BURST, HOURLY));
        IndexedMethod odd = new IndexedMethod("a.Res", "GET", "/odd\tpath\\x", "a.Res#odd()", List.of(HOURLY), List.of());
        StringWriter out = new StringWriter();
        IndexFormat.write(out, List.of(app), List.of(post, odd));

        IndexFile read = IndexFormat.read(new StringReader(out.toString()), "test");
        assertThat(read.applications()).containsExactly(app);
        assertThat(read.methods()).containsExactlyInAnyOrder(post, odd);
        assertThat(read.methods().get(0).resourceClass()).isEqualTo("a.Res");
    }

    @Test
    void recordKindsOfALaterVersionAreSkipped() throws IOException {
        IndexFile read = IndexFormat.read(new StringReader("ratelimit-index\t1\nsomething-new\tx\n"), "test");
        assertThat(read.methods()).isEmpty();
    }

    @Test
    void anotherFormatVersionOrAMalformedLineIsAnErrorNamingTheSourceAndLine() {
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("ratelimit-index\t2\n"), "jar:x.jar!/idx"))
                .hasMessageContaining("jar:x.jar!/idx, line 1").hasMessageContaining("format version 2");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader("# c\nratelimit-index\t1\nmethod\ta\tGET\n"), "f"))
                .hasMessageContaining("f, line 3");
        assertThatThrownBy(() -> IndexFormat.read(new StringReader(
                "ratelimit-index\t1\nmethod\ta.R\tGET\t/x\ta.R#x()\t\tbad;0;1;TRANSPORT\n"), "f"))
                .hasMessageContaining("permitLimit must be >= 1, was 0");
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
